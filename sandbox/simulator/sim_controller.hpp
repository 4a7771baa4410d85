#pragma once
// What every simulated controller is: a runtime::Controller, over the cluster's informers, whose
// reconcile is the derived class's. The simulator stops each one before it is destroyed, so the
// workers never reach a derived part that is gone.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "sandbox/simulator/cluster.hpp"

namespace respool::sandbox::sim {

class SimController {
 public:
  SimController(const SimController&) = delete;
  SimController& operator=(const SimController&) = delete;
  virtual ~SimController() = default;
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 protected:
  SimController(Cluster& cluster, std::string name, int workers)
      : cluster_(cluster),
        controller_(
            cluster.clock, [this](const std::string& key) { return reconcile(key); },
            controller_options(std::move(name), workers)) {}
  virtual std::expected<runtime::ReconcileResult, std::string> reconcile(
      const std::string& key) = 0;

  Cluster& cluster_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
