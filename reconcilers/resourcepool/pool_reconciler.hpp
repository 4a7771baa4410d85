#pragma once
// The ResourcePool controller: observe the pool, its nodes, the free nodes and its plug-ins
// from the caches; decide with the policy functions; act (claim, admit, drain, release,
// install); report status, events, records, audit lines and metrics. See RULES.md P1–P14,
// N9, F1–F5, A1.

#include <expected>
#include <map>
#include <string>
#include <vector>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/node_view_cache.hpp"
#include "reconcilers/policy/pool_plan.hpp"
#include "reconcilers/policy/pool_status.hpp"
#include "reconcilers/policy/records.hpp"
#include "reconcilers/resourcepool/expectations.hpp"
#include "reconcilers/resourcepool/unrecorded.hpp"

namespace respool::reconcilers {

// A pool node as observed: the cache object, its policy view and its pool state.
struct ObservedNode {
  std::shared_ptr<const kube::Node> node;
  NodeViewCache::ViewPtr view;
  policy::PoolNode pool_node;
};

class PoolReconciler {
 public:
  explicit PoolReconciler(Context& context) : ctx_(context) {}
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& name);

 private:
  struct Outcome {
    std::vector<std::string> claimed, admitted, released;
    std::optional<std::string> scale_in_blocked;
    bool busy = false;  // something is still moving: look again soon
  };

  std::vector<ObservedNode> observe_nodes(const std::string& pool, const policy::Catalog& catalog);
  std::vector<policy::FreeNode> free_nodes(const FreeNodeIndex::CatalogPtr& catalog);
  int running_jobs(const std::string& node) const;

  // Actions; each returns an error only for failures worth a retry with backoff.
  std::expected<void, std::string> admit(const std::string& pool, std::vector<ObservedNode>& nodes,
                                         const policy::Catalog& catalog, Outcome& out);
  std::expected<void, std::string> claim(const std::string& pool,
                                         const policy::ResourcePoolSpec& spec,
                                         const policy::PoolPlan& plan, Outcome& out);
  // Audits and records the claims an earlier run made but did not live to record.
  void recover_claims(const std::string& pool, const std::vector<ObservedNode>& nodes,
                      const std::vector<policy::Record>& records, policy::Operation operation,
                      Outcome& out);
  std::expected<void, std::string> set_job_types(const policy::ResourcePoolSpec& spec,
                                                 const std::vector<ObservedNode>& nodes);
  // Drains and releases `names` (scale-in or deletion).
  std::expected<void, std::string> release(const std::string& pool,
                                           const std::vector<std::string>& names,
                                           const std::vector<ObservedNode>& nodes, Outcome& out);
  std::expected<std::vector<policy::PluginStatus>, std::string> sync_plugins(
      const kube::Unstructured& pool, const std::vector<policy::JobType>& job_types,
      int pool_nodes);
  std::expected<bool, std::string> remove_plugins(const std::string& pool);

  std::expected<runtime::ReconcileResult, std::string> reconcile_deletion(
      const kube::Unstructured& pool, std::vector<ObservedNode>& nodes);

  std::expected<bool, std::string> write_status(const kube::Unstructured& pool,
                                                const nlohmann::json& status);

  Context& ctx_;
  Expectations expectations_;
  UnrecordedNodes unrecorded_;
};

}  // namespace respool::reconcilers
