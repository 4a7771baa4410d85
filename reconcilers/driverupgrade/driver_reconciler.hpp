#pragma once
// The driver-upgrade controller (issue 14; rules D1–D4, P13, N6). Its key is the pool; it holds
// the pool's lock (shared with the pool and node-operation controllers), so that the nodes it
// starts are decided in one place, from one view.
//   observe  the pool, its driver DaemonSets, its nodes (their upgrade as their labels record
//            it), the driver pod and the job pods on each (driver_observe.cpp)
//   decide   policy::plan_upgrade: every node's next step, and the batch's free slots;
//            policy/driver_upgrade_round: each node's standing, each step's words, the next round
//   act      the DaemonSets (OnDelete: nothing rolls by itself), then per step: the job pods
//            (Force) or the node's driver pod deleted, and the node's next state written,
//            guarded by its resourceVersion (driver_actions.cpp)
//   report   events and audit lines per node that starts, finishes or fails; the pool
//            controller reports progress from the same node labels (status.driver,
//            DriverUpgrading, phase Upgrading, Degraded)
// A state this controller wrote is waited for in the cache before the next plan: planning from
// a cache that does not show it yet would hand the same slot out twice.

#include <expected>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/driver_daemonset.hpp"
#include "reconcilers/policy/driver_upgrade.hpp"
#include "reconcilers/policy/driver_upgrade_round.hpp"
#include "reconcilers/policy/spec.hpp"
#include "reconcilers/written_versions.hpp"

namespace respool::reconcilers {

// One pool node whose driver the pool sets, as observed, sorted by name.
struct DriverMember {
  policy::UpgradeNode node;
  std::shared_ptr<const policy::NodeView> view;
  policy::AcceleratorType type = policy::AcceleratorType::GPU;
  std::vector<std::string> job_pods;  // namespace/name of its running job pods
  // Events of a node's upgrade regard the node (as `kubectl describe node` shows them): the
  // pool's own events stay few, within the recorder's per-object budget.
  runtime::ObjectReference ref;
};

class DriverReconciler {
 public:
  explicit DriverReconciler(Context& context) : ctx_(context) {}
  Outcome<runtime::ReconcileResult> reconcile(const std::string& pool);

 private:
  // What one round acts on.
  struct Round {
    const kube::Unstructured& pool;
    policy::UpgradeMode mode;
    bool blocked;  // D3, P13: no new node is marked
    runtime::TimePoint now;
    bool busy = false;  // wrote something: look again soon
    std::optional<ReconcileError> failure{};
    void fail(std::unexpected<ReconcileError> what) {
      if (!failure) failure = std::move(what.error());
    }
  };

  std::vector<DriverMember> observe(const std::string& pool, const policy::Catalog& catalog,
                                    const policy::ResourcePoolSpec& spec) const;
  // The DaemonSets the pool's spec asks for, created or updated; stale ones removed.
  Outcome<void> sync_daemonsets(const kube::Unstructured& pool,
                                const std::vector<policy::DriverDaemonSet>& want);
  void act(Round& round, const policy::UpgradeStep& step, const DriverMember& member);
  void delete_job_pods(Round& round, const DriverMember& member);
  // false when the pod could not be deleted (the round's failure says why).
  bool delete_driver_pod(Round& round, const policy::UpgradeNode& node);
  void write_state(Round& round, const policy::UpgradeStep& step, const DriverMember& member);

  // Whether the audit line `key` of the node's current step is new to this process (a lost race
  // retries the step without repeating its line).
  bool audit_once(const std::string& pool, const std::string& node, const std::string& key);

  Context& ctx_;
  WrittenVersions written_;  // node states this controller wrote, until the cache shows them
  std::mutex mu_;
  std::map<std::string, std::string> audited_;  // pool/node → the last step audited
};

}  // namespace respool::reconcilers
