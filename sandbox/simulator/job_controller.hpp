#pragma once
// The Job controller: carries out job_plan.hpp for each batch/v1 Job whenever it or one of its
// pods changes, and releases the tracking finalizer of pods whose Job is gone.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/pending_pods.hpp"

namespace respool::sandbox::sim {

class JobController {
 public:
  explicit JobController(Cluster& cluster);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);
  std::expected<void, std::string> release(const Json& pod);

  Cluster& cluster_;
  PendingPods pending_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
