#pragma once
// The Job controller: carries out job_plan.hpp for each batch/v1 Job whenever it or one of its
// pods changes, and releases the tracking finalizer of pods whose Job is gone.

#include <expected>
#include <string>

#include "sandbox/simulator/pending_pods.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class JobController : public SimController {
 public:
  explicit JobController(Cluster& cluster);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  std::expected<void, std::string> release(const Json& pod);

  PendingPods pending_;
};

}  // namespace respool::sandbox::sim
