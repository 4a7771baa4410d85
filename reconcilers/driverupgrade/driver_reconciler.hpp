#pragma once
// The driver-upgrade controller (issue 14; rules D1–D4, P13, N6). Its key is the pool; it holds
// the pool's lock (shared with the pool and node-operation controllers), so that the nodes it
// starts are decided in one place, from one view.
//   observe  the pool, its driver DaemonSets, its nodes (their upgrade as their labels record
//            it), the driver pod and the job pods on each
//   decide   policy::plan_upgrade: every node's next step, and the batch's free slots
//   act      the DaemonSets (OnDelete: nothing rolls by itself), then per step: the job pods
//            (Force) or the node's driver pod deleted, and the node's next state written,
//            guarded by its resourceVersion
//   report   events and audit lines per node that starts, finishes or fails; the pool
//            controller reports progress from the same node labels (status.driver,
//            DriverUpgrading, phase Upgrading, Degraded)
// A state this controller wrote is waited for in the cache before the next plan: planning from
// a cache that does not show it yet would hand the same slot out twice.

#include <expected>
#include <map>
#include <mutex>
#include <string>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/driver_daemonset.hpp"
#include "reconcilers/policy/driver_upgrade.hpp"

namespace respool::reconcilers {

class DriverReconciler {
 public:
  explicit DriverReconciler(Context& context) : ctx_(context) {}
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& pool);

 private:
  // The DaemonSets the pool's spec asks for, created or updated; stale ones removed.
  std::expected<void, std::string> sync_daemonsets(
      const kube::Unstructured& pool, const std::vector<policy::DriverDaemonSet>& want);
  // Whether a state written earlier is still missing from the cache (then: wait).
  bool waiting_for_cache(const std::string& pool, runtime::TimePoint now);
  void expect(const std::string& pool, const std::string& node, std::string state,
              runtime::TimePoint now);

  // Whether the audit line `key` of the node's current step is new to this process (a lost race
  // retries the step without repeating its line).
  bool audit_once(const std::string& pool, const std::string& node, const std::string& key);

  Context& ctx_;
  struct Written {
    std::string pool;
    std::string state;  // the label value written ("" = removed)
    runtime::TimePoint at{};
  };
  std::mutex mu_;
  std::map<std::string, Written> written_;      // by node
  std::map<std::string, std::string> audited_;  // pool/node → the last step audited
};

}  // namespace respool::reconcilers
