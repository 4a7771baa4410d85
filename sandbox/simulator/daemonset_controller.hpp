#pragma once
// The DaemonSet controller: carries out daemonset_history.hpp and daemonset_plan.hpp for each
// DaemonSet whenever it, one of its pods or revisions, or any node changes, and writes the
// status through /status.

#include <expected>
#include <string>

#include "sandbox/simulator/daemonset_history.hpp"
#include "sandbox/simulator/pending_pods.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class DaemonSetController : public SimController {
 public:
  explicit DaemonSetController(Cluster& cluster);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  // Creates, renumbers and deletes ControllerRevisions as planned; failures are appended.
  void write_history(const DaemonSetHistoryPlan& plan, const std::string& ns,
                     std::string& failures);

  PendingPods pending_;
};

}  // namespace respool::sandbox::sim
