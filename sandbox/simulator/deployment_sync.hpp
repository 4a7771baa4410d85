#pragma once
// The Deployment controller's sync, shared by deployment_plan.cpp (finding the new ReplicaSet,
// revisions, annotations, scaling one set, the entry point) and deployment_rollout.cpp (the
// strategies, proportional scaling, history cleanup, the status). Private to those two files.

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/simulator/deployment_plan.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim::deployment_detail {

using Json = nlohmann::json;

constexpr const char* kRevision = "deployment.kubernetes.io/revision";
constexpr const char* kRevisionHistory = "deployment.kubernetes.io/revision-history";
constexpr const char* kDesiredReplicas = "deployment.kubernetes.io/desired-replicas";
constexpr const char* kMaxReplicas = "deployment.kubernetes.io/max-replicas";
constexpr const char* kHashLabel = "pod-template-hash";
constexpr std::size_t kRevisionHistoryChars = 2000;

// Annotations a Deployment does not copy to its ReplicaSets (and a rollback does not take).
bool skip_annotation(const std::string& key);
std::int64_t revision_of(const Json& rs);
int replicas_of(const Json& object);
Json& annotations_of(Json& object);
bool rolling_update(const Json& d);

// One sync of one Deployment over in-memory copies of its ReplicaSets; every write the real
// controller would make is applied to the copies and recorded in the plan.
class DeploymentSync {
 public:
  DeploymentSync(const Json& d, const std::vector<const Json*>& sets,
                 const std::vector<const Json*>& pods, TimePoint now)
      : d_(d), original_(d), pods_(pods), now_(now) {
    for (const Json* s : sets)
      sets_.push_back(*s);
    std::sort(sets_.begin(), sets_.end(), created_before);
  }

  DeploymentPlan run();

  // deployment_plan.cpp: the new and old sets, revisions, annotations, one set's size.
  void find_sets(bool create);
  int replicas() const { return replicas_of(d_); }
  bool set_new_annotations(Json& rs, std::int64_t revision, bool exists);
  void set_revision(const std::string& revision);
  bool scale(Json& rs, int to, bool only_if_size_changes);
  void record_update(const Json& rs);
  std::vector<Json*> olds();
  std::vector<const Json*> all() const;
  // deployment_rollout.cpp: the strategies, proportional scaling, history, the status.
  void sync_scaling();
  void proportional_scale();
  void rolling();
  void recreate();
  void cleanup();
  void finish_status(bool rollout);

  Json d_;  // the Deployment as the sync has changed it (revision, conditions)
  const Json& original_;
  std::vector<Json> sets_;
  const std::vector<const Json*>& pods_;
  TimePoint now_;
  std::optional<std::size_t> new_;  // index in sets_
  std::set<std::string> updated_;   // names of sets_ changed
  DeploymentPlan plan_;
};

}  // namespace respool::sandbox::sim::deployment_detail
