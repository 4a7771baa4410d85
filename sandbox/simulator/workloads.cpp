#include "sandbox/simulator/workloads.hpp"

#include "sandbox/simulator/deployment_controller.hpp"
#include "sandbox/simulator/replicaset_controller.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {
namespace {

std::unique_ptr<ObjectInformer> workload_informer(Cluster& cluster,
                                                  const kube::Resource& resource) {
  runtime::InformerOptions options;
  options.resource = resource;
  return std::make_unique<ObjectInformer>(cluster.client, cluster.clock, std::move(options));
}

std::unique_ptr<runtime::EventRecorder> recorder(Cluster& cluster, const char* controller) {
  runtime::EventRecorderOptions options;
  options.reporting_controller = controller;
  options.reporting_instance = "respool-sandbox";
  return std::make_unique<runtime::EventRecorder>(cluster.client, cluster.clock,
                                                  std::move(options));
}

}  // namespace

Workloads::Workloads(Cluster& cluster)
    : cluster_(cluster),
      deployments_(workload_informer(cluster, kube::resources::deployments)),
      replicasets_(workload_informer(cluster, workload::replicasets)),
      replicationcontrollers_(workload_informer(cluster, workload::replicationcontrollers)),
      deployment_events_(recorder(cluster, "deployment-controller")),
      replicaset_events_(recorder(cluster, "replicaset-controller")),
      replication_events_(recorder(cluster, "replication-controller")) {
  replicaset_controller_ = std::make_unique<ReplicaController>(
      cluster, *replicasets_, ReplicaKind{&workload::replicasets, "apps/v1", "ReplicaSet"},
      *replicaset_events_);
  replication_controller_ = std::make_unique<ReplicaController>(
      cluster, *replicationcontrollers_,
      ReplicaKind{&workload::replicationcontrollers, "v1", "ReplicationController"},
      *replication_events_);
  deployment_controller_ = std::make_unique<DeploymentController>(
      cluster, *deployments_, *replicasets_, *deployment_events_);
}

Workloads::~Workloads() {
  stop();
}

std::vector<runtime::InformerBase*> Workloads::informers() {
  return {deployments_.get(), replicasets_.get(), replicationcontrollers_.get()};
}

void Workloads::start() {
  deployment_events_->start();
  replicaset_events_->start();
  replication_events_->start();
  replicaset_controller_->start();
  replication_controller_->start();
  deployment_controller_->start();
}

void Workloads::stop() {
  // Controllers first (they read the caches), then what they write through.
  if (deployment_controller_) deployment_controller_->stop();
  if (replication_controller_) replication_controller_->stop();
  if (replicaset_controller_) replicaset_controller_->stop();
  if (deployment_events_) deployment_events_->stop();
  if (replicaset_events_) replicaset_events_->stop();
  if (replication_events_) replication_events_->stop();
  for (auto* informer : informers())
    if (informer) informer->stop();
}

}  // namespace respool::sandbox::sim
