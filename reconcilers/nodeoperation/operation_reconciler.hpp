#pragma once
// The NodeOperation controller: replaces, resets and deletes pool nodes within N1–N8. Its key is
// the pool, not the operation: every decision about a pool's operations is made in one place,
// by one worker, under the pool's lock (shared with the pool controller), from one ledger kept
// in the pool's status and written before any node is touched (policy/node_operation_ledger.hpp).
//   observe  the pool, its operations, nodes, pods, reset Jobs and free nodes, from the caches
//   decide   admission (policy/node_operation_admission.hpp), then each active node's next
//            step (policy/node_operation_steps.hpp)
//   act      the ledger write, then guarded node patches, evictions, claims, reset Jobs
//   preview  N18: a NodeOperation with spec.preview is decided the same way on a scratch ledger
//            and ends Previewed with what it would do; it never enters the ledger
//   report   each operation's status with its steps, events, audit lines (A1), metrics; and
//            P9 retention of ended operations
// Every stage of a node is visible in the cluster, so a restarted operator resumes where the
// last one stopped; an ending is written to the operation's status before the node is restored.

#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/node_operation_admission.hpp"
#include "reconcilers/policy/node_operation_preview.hpp"
#include "reconcilers/policy/node_operation_status.hpp"
#include "reconcilers/policy/node_operation_steps.hpp"
#include "reconcilers/policy/spec.hpp"
#include "reconcilers/written_versions.hpp"

namespace respool::reconcilers {

// Pods a drain must move: bound there, not finished, not a DaemonSet's, not our reset Job's.
bool to_drain(const kube::Pod& pod);

class OperationReconciler {
 public:
  explicit OperationReconciler(Context& context) : ctx_(context) {}
  // `pool`: the pool whose operations to reconcile (the key).
  Outcome<runtime::ReconcileResult> reconcile(const std::string& pool);

  // The reset Job of a node in an operation (in the operator's namespace).
  static std::string reset_job_name(const std::string& operation, const std::string& node);

  // A namespace's PodDisruptionBudgets with their selectors, as an eviction sees them; read
  // once per namespace per preview (no cache of budgets for this rare question).
  struct NamespaceBudgets {
    std::vector<policy::DisruptionBudgetView> views;
    std::vector<kube::LabelSelector> selectors;
  };
  using BudgetReads = std::map<std::string, NamespaceBudgets>;

 private:
  // One NodeOperation as observed, and the status this reconcile builds for it.
  struct Operation {
    std::shared_ptr<const kube::Unstructured> object;
    std::optional<policy::NodeOperationSpec> spec;
    std::vector<policy::Violation> invalid;
    policy::OperationStatus old_status, status;
    std::optional<policy::Verdict> waiting;  // why (some of) its nodes wait to start
    bool deleting = false;
    const std::string& name() const { return object->meta.name; }
  };
  struct Observation {
    std::string pool;
    std::shared_ptr<const kube::Unstructured> pool_object;  // null: no such pool
    std::optional<policy::ResourcePoolSpec> pool_spec;      // null: invalid or no pool
    std::shared_ptr<const policy::Catalog> catalog;
    runtime::TimePoint now{};
    std::vector<Operation> operations;  // oldest first
    policy::Ledger ledger;
    std::vector<policy::PoolNode> pool_nodes;
    bool driver_upgrading = false;
    int pool_size = 0;
    Operation* operation(const std::string& name);
  };
  // What a round found worth looking again for, and when.
  struct Round {
    bool busy = false;
    std::optional<runtime::TimePoint> wake;
    std::optional<ReconcileError> failure;
    void at(runtime::TimePoint t) {
      if (!wake || t < *wake) wake = t;
    }
    void note(Outcome<void> r) {
      if (!r && !failure) failure = r.error();
    }
  };

  Observation observe(const std::string& pool);
  policy::OperatedNode facts(const Observation& o, const std::string& operation,
                             const std::string& node) const;
  // What became of a deleted node's place (API.md, "Delete").
  std::string delete_outcome(const Observation& o, const std::string& node,
                             const policy::OperatedNode& f) const;

  // Finalizers: ours on every operation; a deleted one ends its nodes first.
  Outcome<bool> keep_finalizers(Observation& o);
  // Ends every node of operations being deleted or gone, so that they are restored.
  void abort_orphans(Observation& o);
  // Drops from the ledger the nodes whose part ended and that are restored.
  void settle_ledger(Observation& o);
  Outcome<bool> write_ledger(const Observation& o, const policy::Ledger& next);
  void apply_admission(Observation& o, const policy::Admission& a);

  // One active node: its steps as observed, its next step done.
  void advance(Observation& o, Operation& op, const policy::ActiveNode& active, Round& round);
  Outcome<void> mark(Observation& o, Operation& op, const std::string& node,
                     policy::NodeProgress& progress);
  Outcome<void> drain(Operation& op, const std::string& node, policy::NodeProgress& progress,
                      Round& round);
  // Idle free nodes of `flavor` (in `zone` where given) a replacement may claim, by name (N3).
  std::vector<policy::FreeNode> idle_free_nodes(const Observation& o, const std::string& flavor,
                                                const std::string* zone) const;
  Outcome<void> claim_replacement(Observation& o, Operation& op, const std::string& node,
                                  policy::NodeProgress& progress, Round& round);
  Outcome<void> retire(Observation& o, Operation& op, const std::string& node,
                       const std::string& replacement, policy::NodeProgress& progress);
  Outcome<void> start_reset(Observation& o, Operation& op, const std::string& node,
                            policy::NodeProgress& progress);
  Outcome<void> readmit(Observation& o, const std::string& node, policy::NodeProgress& progress);
  // Undoes what is left on a node whose part ended (restore_patch), and its reset Job.
  Outcome<void> restore_node(Observation& o, const policy::ActiveNode& active,
                             policy::NodePhase ended);
  // How the part of an active node ended: its operation's status, or Failed when the operation
  // is gone or invalid; nullopt while it goes on.
  std::optional<policy::NodePhase> ending(Observation& o, const policy::ActiveNode& active);

  // N18: decides each new preview as a real operation beside `open` (the pool's open
  // operations) on a scratch copy of `ledger`, and fills its status with what it would do.
  void preview(Observation& o, const policy::AdmissionInput& in,
               const std::vector<policy::OpenOperation>& open, Round& round);
  Outcome<policy::NodePreview> node_preview(const Observation& o, const Operation& op,
                                            const std::string& node,
                                            std::vector<std::string>& taken, BudgetReads& budgets);

  // Writes the operations' statuses, with events and metrics for what changed.
  void report(Observation& o, Round& round);
  // P9: deletes the pool's ended operations past their retention; when to look again.
  std::optional<runtime::TimePoint> retain(const Observation& o);

  void audit(policy::AuditOperation op, const std::string& pool, const std::string& node,
             const std::string& message);

  // Audit lines written whose step no cached status shows yet (operation/node/step): a
  // recovery must not write them again only because the cache lags behind the status write.
  void remember_audit(const std::string& key, bool remember);
  bool audit_remembered(const std::string& key);

  Context& ctx_;
  // The ledger and status writes of this controller not yet in the caches: a round waits for
  // them, else it would act on the world before its last write (mark again a node it has just
  // restored, because the cached status does not show that node's part ended).
  WrittenVersions written_;
  std::mutex audited_mu_;
  std::set<std::string> audited_;
};

}  // namespace respool::reconcilers
