#pragma once
// The controllers of kube-controller-manager that kubectl's workflows wait for, with the
// informers they read: ReplicaSets and ReplicationControllers, Deployments. (The DaemonSet and
// Job controllers, the scheduler and the kubelets are the Simulator's own.)
// Made before the informers start, so that every handler and index is in place.

#include <memory>
#include <vector>

#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/cluster.hpp"

namespace respool::sandbox::sim {

class DeploymentController;
class ReplicaController;

class Workloads {
 public:
  explicit Workloads(Cluster& cluster);
  ~Workloads();
  Workloads(const Workloads&) = delete;
  Workloads& operator=(const Workloads&) = delete;

  // The informers to start (and wait for) with the Simulator's own.
  std::vector<runtime::InformerBase*> informers();
  void start();
  void stop();

 private:
  Cluster& cluster_;
  std::unique_ptr<ObjectInformer> deployments_, replicasets_, replicationcontrollers_;
  std::unique_ptr<runtime::EventRecorder> deployment_events_, replicaset_events_,
      replication_events_;
  std::unique_ptr<ReplicaController> replicaset_controller_, replication_controller_;
  std::unique_ptr<DeploymentController> deployment_controller_;
};

}  // namespace respool::sandbox::sim
