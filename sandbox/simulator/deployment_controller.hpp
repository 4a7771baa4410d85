#pragma once
// The Deployment controller: claims the ReplicaSets its selector matches, carries out
// deployment_plan.hpp (create, scale and delete ReplicaSets; the revision annotation and the
// status through /status) and records the real controller's events.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/recent_writes.hpp"

namespace respool::sandbox::sim {

class DeploymentController {
 public:
  DeploymentController(Cluster& cluster, ObjectInformer& deployments, ObjectInformer& sets,
                       runtime::EventRecorder& events);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);
  std::vector<std::string> deployments_for_set(const kube::Unstructured& set) const;
  std::expected<void, std::string> create_set(const Json& deployment, const Json& set);

  Cluster& cluster_;
  ObjectInformer& deployments_;
  ObjectInformer& sets_;
  runtime::EventRecorder& events_;
  RecentWrites written_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
