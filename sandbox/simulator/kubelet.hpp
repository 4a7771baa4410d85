#pragma once
// The kubelets of the simulated nodes, as one controller over pods: a pod bound to a simulated,
// Ready node starts (Running, ready), ends after its sandbox.respool.io/run-seconds (Succeeded,
// or Failed with sandbox.respool.io/exit-code), and once deleted stops and is removed (DELETE
// with gracePeriodSeconds 0). On a node that is not Ready nothing moves until it recovers.
// Pods bound to a node that no longer exists are collected as pod GC does. Pods on nodes the
// simulator does not play stay as they are, like pods on a node without a kubelet.

#include <expected>
#include <string>

#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class Kubelet : public SimController {
 public:
  Kubelet(Cluster& cluster, int workers);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  std::expected<runtime::ReconcileResult, std::string> terminate(const Json& pod);
  std::expected<void, std::string> write_status(const Json& pod, Json status);
};

// Pod GC for a pod bound to a node the cache does not have: confirms with the API server, then
// fails the pod (condition DisruptionTarget, reason DeletionByPodGC) and deletes it at once.
std::expected<void, std::string> collect_orphan(Cluster& cluster, const Json& pod);

}  // namespace respool::sandbox::sim
