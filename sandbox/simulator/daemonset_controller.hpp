#pragma once
// The DaemonSet controller: carries out daemonset_plan.hpp for each DaemonSet whenever it, one
// of its pods, or any node changes, and writes the status through /status.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/pending_pods.hpp"

namespace respool::sandbox::sim {

class DaemonSetController {
 public:
  explicit DaemonSetController(Cluster& cluster);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);

  Cluster& cluster_;
  PendingPods pending_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
