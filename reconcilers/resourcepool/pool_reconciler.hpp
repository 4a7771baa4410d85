#pragma once
// The ResourcePool controller: observe the pool, its nodes, the free nodes and its plug-ins
// from the caches; decide with the policy functions; act (claim, admit, drain, release,
// install); report status, events, records, audit lines and metrics. See RULES.md P1–P14,
// N9, F1–F5, A1. Node operations (N1–N8) are the NodeOperation controller's; this one keeps
// the pool's counts around them (policy/pool_plan.hpp) and keeps their ledger in its status.

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/node_view_cache.hpp"
#include "reconcilers/policy/pool_plan.hpp"
#include "reconcilers/policy/pool_status.hpp"
#include "reconcilers/policy/records.hpp"
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
  // What a reconcile read from the caches.
  struct Observation {
    std::shared_ptr<const kube::Unstructured> pool;
    runtime::TimePoint now{};
    std::shared_ptr<const policy::Catalog> catalog;
    bool waiting = false;  // earlier claims or releases not in the cache yet
    std::vector<ObservedNode> nodes;
    kube::Json old_status;
    std::optional<policy::PoolPhase> previous_phase;
    std::vector<policy::Condition> previous_conditions;
    std::vector<policy::Record> records;
    std::vector<std::string> delete_first;       // nodes named by Delete operations not yet marked
    std::vector<std::string> delete_unanswered;  // of those, operations without a status yet
    const std::string& name() const { return pool->meta.name; }
  };
  // What the rules make of it.
  struct Decision {
    std::optional<policy::ResourcePoolSpec> spec;
    std::vector<policy::Violation> invalid;
    std::optional<std::string> network_problem;
    std::optional<policy::PoolPlan> plan;  // made once the round's admissions are settled
    bool valid() const { return invalid.empty() && !network_problem; }
  };
  // What the writes did.
  struct Outcome {
    std::vector<std::string> claimed, admitted, released;
    std::optional<std::string> scale_in_blocked;
    bool busy = false;  // something is still moving: look again soon
    std::vector<policy::PluginStatus> plugins;
    std::optional<std::string> failure;  // the first write that failed (retried with backoff)
    void note(std::expected<void, std::string> r) {
      if (!r && !failure) failure = r.error();
    }
  };

  // observe → decide → (settle admissions → plan → act) → report.
  std::optional<Observation> observe(const std::string& name);
  Decision decide(const Observation& o) const;
  // Nodes whose admission ended leave the P6 window before the plan's claims are chosen; claims
  // an earlier run did not record are recorded now.
  void settle_admissions(Observation& o, const policy::ResourcePoolSpec& spec, Outcome& out);
  policy::PoolPlan plan(const Observation& o, const Decision& d);
  void act(Observation& o, const Decision& d, Outcome& out);
  std::expected<runtime::ReconcileResult, std::string> report(const Observation& o,
                                                              const Decision& d, Outcome& out);
  void forget(const std::string& name);

  std::vector<ObservedNode> observe_nodes(const std::string& pool, const policy::Catalog& catalog);
  // Fills delete_first and delete_unanswered from the pool's Delete operations.
  void pending_deletes(Observation& o) const;
  std::vector<policy::FreeNode> free_nodes(const FreeNodeIndex::CatalogPtr& catalog);
  int running_jobs(const std::string& node) const;

  // Actions; each returns an error only for failures worth a retry with backoff.
  std::expected<void, std::string> admit(const std::string& pool, std::vector<ObservedNode>& nodes,
                                         const policy::Catalog& catalog,
                                         const policy::ResourcePoolSpec& spec, Outcome& out);
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
  // Undoes the release of `names`: their group needs them again.
  std::expected<void, std::string> keep(const std::vector<std::string>& names,
                                        const std::vector<ObservedNode>& nodes, Outcome& out);
  std::expected<std::vector<policy::PluginStatus>, std::string> sync_plugins(
      const kube::Unstructured& pool, const std::vector<policy::JobType>& job_types,
      int pool_nodes);
  std::expected<bool, std::string> remove_plugins(const std::string& pool);

  std::expected<runtime::ReconcileResult, std::string> reconcile_deletion(
      const kube::Unstructured& pool, std::vector<ObservedNode>& nodes);

  // Writes `status`, keeping the node-operation ledger the other controller keeps there.
  std::expected<bool, std::string> write_status(const kube::Unstructured& pool,
                                                nlohmann::json status);
  void emit_events(const kube::Unstructured& pool, const nlohmann::json& old_status,
                   const policy::PoolStatus& status, const Decision& d, runtime::TimePoint now);

  Context& ctx_;
  UnrecordedNodes unrecorded_;
};

}  // namespace respool::reconcilers
