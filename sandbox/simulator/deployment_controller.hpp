#pragma once
// The Deployment controller: claims the ReplicaSets its selector matches, carries out
// deployment_plan.hpp (create, scale and delete ReplicaSets; the revision annotation and the
// status through /status) and records the real controller's events.

#include <expected>
#include <string>

#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/recent_writes.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class DeploymentController : public SimController {
 public:
  DeploymentController(Cluster& cluster, ObjectInformer& deployments, ObjectInformer& sets,
                       runtime::EventRecorder& events);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  std::vector<std::string> deployments_for_set(const kube::Unstructured& set) const;
  std::expected<void, std::string> create_set(const Json& deployment, const Json& set);

  ObjectInformer& deployments_;
  ObjectInformer& sets_;
  runtime::EventRecorder& events_;
  RecentWrites written_;
};

}  // namespace respool::sandbox::sim
