#pragma once
// The accelerator driver on a simulated node: once a pod annotated respool.io/driver-version
// has run (Ready) for Timing::driver_install on a Ready node, the node's respool.io/driver-version
// label shows that version (API.md: "the driver on the node sets the node's label once that
// version runs").

#include <expected>
#include <string>

#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class DriverAgent : public SimController {
 public:
  explicit DriverAgent(Cluster& cluster);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
};

}  // namespace respool::sandbox::sim
