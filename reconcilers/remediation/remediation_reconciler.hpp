#pragma once
// The remediation controller (N10–N16), keyed by pool:
//   observe  the pool's spec.remediation and status.remediation (its memory), its nodes' fault
//            codes (policy/remediation_objects.hpp) and its NodeOperations, from the caches
//   decide   policy::plan_remediation: which node's fault is due, which step, paused or not
//   act      the NodeOperations it decided, named deterministically, then status.remediation
//            (guarded by the pool's resourceVersion). A create that fails leaves the memory as
//            it was, so the next round tries the same name; after a crash between the two, the
//            next round computes the same name again and finds the operation (AlreadyExists):
//            a node never gets a second automatic operation for one step's attempt.
//   report   events on the pool, respool_remediations_total and respool_remediation_paused
// It never touches a node: every limit of N1–N8 and the ledger apply through the NodeOperation
// controller, to people's and automatic operations together.

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "operator/runtime/controller.hpp"
#include "operator/runtime/metrics.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/remediation_objects.hpp"
#include "reconcilers/reconcile_error.hpp"
#include "reconcilers/written_versions.hpp"

namespace respool::reconcilers {

class RemediationReconciler {
 public:
  RemediationReconciler(Context& ctx, runtime::Registry& metrics);
  Outcome<runtime::ReconcileResult> reconcile(const std::string& pool);

 private:
  struct Observation {
    std::shared_ptr<const kube::Unstructured> pool;
    nlohmann::json old_status;  // status.remediation as cached (null: none)
    policy::RemediationInput input;
    // The pool's NodeOperations, those of nodes that left the pool included.
    std::vector<std::pair<std::string, policy::OperationOnNodes>> operations;
  };
  Observation observe(const kube::Unstructured& pool, const policy::RemediationSpec& spec);
  Outcome<void> write_status(const kube::Unstructured& pool, const nlohmann::json& wanted);
  Outcome<void> create(const kube::Unstructured& pool, const policy::RemediationAction& action);
  void report(const kube::Unstructured& pool, const nlohmann::json& old_status,
              const policy::RemediationPlan& plan);
  void count_endings(const std::string& pool, const Observation& o);
  void forget(const std::string& pool);

  Context& ctx_;
  WrittenVersions written_;  // the pool's status and the operations this controller created
  runtime::CounterFamily& remediations_;  // {pool, action, result}
  runtime::GaugeFamily& paused_;          // {pool}
  std::mutex mu_;
  // Automatic operations seen running, by pool, to count their endings.
  std::map<std::string, std::set<std::string>> running_;
};

}  // namespace respool::reconcilers
