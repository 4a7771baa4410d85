#pragma once
// The DaemonSet controller: carries out daemonset_history.hpp and daemonset_plan.hpp for each
// DaemonSet whenever it, one of its pods or revisions, or any node changes, and writes the
// status through /status.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/daemonset_history.hpp"
#include "sandbox/simulator/pending_pods.hpp"

namespace respool::sandbox::sim {

class DaemonSetController {
 public:
  explicit DaemonSetController(Cluster& cluster);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);
  // Creates, renumbers and deletes ControllerRevisions as planned; failures are appended.
  void write_history(const DaemonSetHistoryPlan& plan, const std::string& ns,
                     std::string& failures);

  Cluster& cluster_;
  PendingPods pending_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
