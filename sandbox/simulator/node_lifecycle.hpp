#pragma once
// One controller over nodes that plays what a cluster does to a Node besides its kubelet's
// registration: the faults asked for in sandbox.respool.io/fault (node_faults.hpp), and the
// lifecycle taints that follow the conditions (node_taints.hpp), for every node.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "sandbox/simulator/cluster.hpp"

namespace respool::sandbox::sim {

class NodeLifecycle {
 public:
  explicit NodeLifecycle(Cluster& cluster);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);

  Cluster& cluster_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
