#pragma once
// kube-scheduler for pods whose spec.schedulerName is default-scheduler (or empty): binds each
// pending pod (POST pods/NAME/binding) to the node placement.hpp chooses, or marks it
// PodScheduled=False, reason Unschedulable, with the real scheduler's message. Unschedulable
// pods are tried again whenever a node changes or a bound pod frees its resources.
//
// As the real scheduler, it keeps what every node has committed (the pods bound to it) in a
// cache fed by the pod informer, and "assumes" a pod on its node from the moment the binding
// succeeds until the informer shows it bound, so that two pods scheduled back to back never
// overcommit a node. One worker: decisions are sequential, as in the real scheduler.

#include <expected>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "sandbox/simulator/placement.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class Scheduler : public SimController {
 public:
  explicit Scheduler(Cluster& cluster);

 private:
  struct Commitment {
    std::string node;
    kube::ResourceList requests;
  };
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  std::expected<void, std::string> mark_unschedulable(const Json& pod, const std::string& message);
  NodeUsage usage_of(const std::string& node) const;
  void account(const kube::Unstructured& pod);
  void unaccount(const std::string& key);
  void retry_pending();

  mutable std::mutex mu_;
  std::unordered_map<std::string, Commitment> bound_;    // pod key → what it holds
  std::unordered_map<std::string, Commitment> assumed_;  // bound by us, not yet seen bound
};

// Whether this scheduler places the pod: not bound, not ended or ending, and ours.
bool wants_scheduling(const Json& pod);

}  // namespace respool::sandbox::sim
