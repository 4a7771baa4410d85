#pragma once
// The accelerator driver on a simulated node: once a pod annotated respool.io/driver-version
// has run (Ready) for Timing::driver_install on a Ready node, the node's respool.io/driver-version
// label shows that version (API.md: "the driver on the node sets the node's label once that
// version runs").

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "sandbox/simulator/cluster.hpp"

namespace respool::sandbox::sim {

class DriverAgent {
 public:
  explicit DriverAgent(Cluster& cluster);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);

  Cluster& cluster_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
