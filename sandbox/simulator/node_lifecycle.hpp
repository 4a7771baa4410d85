#pragma once
// One controller over nodes that plays what a cluster does to a Node besides its kubelet's
// registration: the faults asked for in sandbox.respool.io/fault (node_faults.hpp), and the
// lifecycle taints that follow the conditions (node_taints.hpp), for every node.

#include <expected>
#include <string>

#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class NodeLifecycle : public SimController {
 public:
  explicit NodeLifecycle(Cluster& cluster);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
};

}  // namespace respool::sandbox::sim
