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
#include "reconcilers/audit_ahead.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/node_view_cache.hpp"
#include "reconcilers/policy/driver_upgrade_status.hpp"
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
  Outcome<runtime::ReconcileResult> reconcile(const std::string& name);

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
  struct Effects {
    std::vector<std::string> claimed, admitted, released;
    std::vector<std::string> relabelled;  // nodes whose job-type labels were set to the spec's
    std::optional<std::string> scale_in_blocked;
    bool busy = false;  // something is still moving: look again soon
    std::vector<policy::PluginStatus> plugins;
    std::optional<ReconcileError> failure;  // the first write that failed (retried with backoff)
    void note(Outcome<void> r) {
      if (!r && !failure) failure = r.error();
    }
  };

  // observe → decide → (settle admissions → plan → act) → report.
  std::optional<Observation> observe(const std::string& name);
  Decision decide(const Observation& o) const;
  // Nodes whose admission ended leave the P6 window before the plan's claims are chosen; claims
  // an earlier run did not record are recorded now.
  void settle_admissions(Observation& o, const policy::ResourcePoolSpec& spec, Effects& out);
  policy::PoolPlan plan(const Observation& o, const Decision& d);
  void act(Observation& o, const Decision& d, Effects& out);
  Outcome<runtime::ReconcileResult> report(const Observation& o, const Decision& d, Effects& out);
  void forget(const std::string& name);

  std::vector<ObservedNode> observe_nodes(const std::string& pool, const policy::Catalog& catalog);
  // Fills delete_first and delete_unanswered from the pool's Delete operations.
  void pending_deletes(Observation& o) const;
  std::vector<policy::FreeNode> free_nodes(const FreeNodeIndex::CatalogPtr& catalog);
  int running_jobs(const std::string& node) const;

  // Actions; each returns an error only for failures worth a retry with backoff.
  Outcome<void> admit(const std::string& pool, std::vector<ObservedNode>& nodes,
                      const policy::Catalog& catalog, const policy::ResourcePoolSpec& spec,
                      Effects& out);
  Outcome<void> claim(const std::string& pool, const policy::ResourcePoolSpec& spec,
                      const policy::PoolPlan& plan, Effects& out);
  // Audits and records the claims an earlier run made but did not live to record.
  void recover_claims(const std::string& pool, const std::vector<ObservedNode>& nodes,
                      const std::vector<policy::Record>& records, policy::Operation operation,
                      Effects& out);
  Outcome<void> set_job_types(const policy::ResourcePoolSpec& spec,
                              const std::vector<ObservedNode>& nodes, Effects& out);
  // Drains and releases `names` (scale-in or deletion).
  Outcome<void> release(const std::string& pool, const std::vector<std::string>& names,
                        const std::vector<ObservedNode>& nodes, Effects& out);
  // Undoes the release of `names`: their group needs them again.
  Outcome<void> keep(const std::vector<std::string>& names, const std::vector<ObservedNode>& nodes,
                     Effects& out);
  Outcome<std::vector<policy::PluginStatus>> sync_plugins(
      const kube::Unstructured& pool, const std::vector<policy::JobType>& job_types,
      int pool_nodes);
  Outcome<bool> remove_plugins(const std::string& pool);

  Outcome<runtime::ReconcileResult> reconcile_deletion(const kube::Unstructured& pool,
                                                       std::vector<ObservedNode>& nodes);

  // report's parts, each by what it reports (pool_report.cpp).
  // The driver upgrade's progress from the nodes' upgrade labels (status.driver, the
  // DriverUpgrading condition), when the spec sets a driver.
  struct DriverReport {
    std::optional<policy::DriverProgress> progress;
    std::vector<policy::UpgradedNode> nodes;
  };
  DriverReport driver_report(const Observation& o, const Decision& d,
                             policy::PoolObservation& observation) const;
  // P9 records: the pool's (creation, scale, deletion) and the driver upgrade's; what ended.
  std::vector<policy::EndedRecord> track_records(const Observation& o, const Decision& d,
                                                 const Effects& out, const DriverReport& driver,
                                                 policy::PoolStatus& status);
  // status.nodeOperations: the node-operation budget's figures, with their metrics.
  void report_node_operations(const Observation& o, const policy::ResourcePoolSpec& spec,
                              nlohmann::json& status);
  void report_metrics(const Observation& o, const policy::PoolStatus& status,
                      const DriverReport& driver);

  // Writes `status`, keeping the node-operation ledger the other controller keeps there.
  Outcome<bool> write_status(const kube::Unstructured& pool, nlohmann::json status);
  void emit_events(const kube::Unstructured& pool, const nlohmann::json& old_status,
                   const policy::PoolStatus& status);
  void audit_spec_change(const kube::Unstructured& pool, const nlohmann::json& old_status,
                         const Decision& d, runtime::TimePoint now);

  Context& ctx_;
  UnrecordedNodes unrecorded_;
  AuditAhead audit_;  // A1's pool records, each written ahead of the write that acknowledges it
};

}  // namespace respool::reconcilers
