#include "sandbox/simulator/workloads.hpp"

#include "sandbox/simulator/cronjob_controller.hpp"
#include "sandbox/simulator/deployment_controller.hpp"
#include "sandbox/simulator/endpoints_controller.hpp"
#include "sandbox/simulator/hpa_controller.hpp"
#include "sandbox/simulator/replicaset_controller.hpp"
#include "sandbox/simulator/root_ca_publisher.hpp"
#include "sandbox/simulator/statefulset_controller.hpp"
#include "sandbox/simulator/token_secrets.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {

std::unique_ptr<ObjectInformer> Workloads::informer(const kube::Resource& resource,
                                                    std::string field_selector) {
  runtime::InformerOptions options;
  options.resource = resource;
  options.field_selector = std::move(field_selector);
  return std::make_unique<ObjectInformer>(cluster_.client, cluster_.clock, std::move(options),
                                          strip_managed_fields);
}

runtime::EventRecorder& Workloads::recorder(const char* controller) {
  runtime::EventRecorderOptions options;
  options.reporting_controller = controller;
  options.reporting_instance = "respool-sandbox";
  recorders_.push_back(std::make_unique<runtime::EventRecorder>(cluster_.client, cluster_.clock,
                                                                std::move(options)));
  return *recorders_.back();
}

Workloads::Workloads(Cluster& cluster, std::string ca_pem) : cluster_(cluster) {
  auto& deployments = *informers_.emplace_back(informer(kube::resources::deployments));
  auto& replicasets = *informers_.emplace_back(informer(workload::replicasets));
  auto& rcs = *informers_.emplace_back(informer(workload::replicationcontrollers));
  auto& statefulsets = *informers_.emplace_back(informer(workload::statefulsets));
  auto& cronjobs = *informers_.emplace_back(informer(workload::cronjobs));
  auto& services = *informers_.emplace_back(informer(kube::resources::services));
  auto& endpoints = *informers_.emplace_back(informer(workload::endpoints));
  auto& slices = *informers_.emplace_back(informer(workload::endpointslices));
  auto& namespaces = *informers_.emplace_back(informer(kube::resources::namespaces));
  auto& root_cas = *informers_.emplace_back(
      informer(kube::resources::configmaps, std::string("metadata.name=") + kRootCAConfigMap));
  auto& token_secrets = *informers_.emplace_back(
      informer(kube::resources::secrets, std::string("type=") + kServiceAccountTokenType));
  auto& service_accounts = *informers_.emplace_back(informer(kube::resources::serviceaccounts));
  auto& hpas = *informers_.emplace_back(informer(workload::horizontalpodautoscalers));

  controllers_.push_back(std::make_unique<ReplicaController>(
      cluster, replicasets, ReplicaKind{&workload::replicasets, "apps/v1", "ReplicaSet"},
      recorder("replicaset-controller")));
  controllers_.push_back(std::make_unique<ReplicaController>(
      cluster, rcs, ReplicaKind{&workload::replicationcontrollers, "v1", "ReplicationController"},
      recorder("replication-controller")));
  controllers_.push_back(std::make_unique<DeploymentController>(cluster, deployments, replicasets,
                                                                recorder("deployment-controller")));
  controllers_.push_back(std::make_unique<StatefulSetController>(
      cluster, statefulsets, cluster.controllerrevisions, recorder("statefulset-controller")));
  controllers_.push_back(
      std::make_unique<CronJobController>(cluster, cronjobs, recorder("cronjob-controller")));
  controllers_.push_back(std::make_unique<EndpointsController>(
      cluster, ServiceInformers{services, endpoints, slices}));
  controllers_.push_back(std::make_unique<EndpointSliceController>(
      cluster, ServiceInformers{services, endpoints, slices}));
  controllers_.push_back(
      std::make_unique<HpaController>(cluster, hpas, recorder("horizontal-pod-autoscaler")));
  controllers_.push_back(
      std::make_unique<TokenSecrets>(cluster, token_secrets, service_accounts, ca_pem));
  controllers_.push_back(
      std::make_unique<RootCAPublisher>(cluster, namespaces, root_cas, std::move(ca_pem)));
}

Workloads::~Workloads() {
  stop();
}

std::vector<runtime::InformerBase*> Workloads::informers() {
  std::vector<runtime::InformerBase*> out;
  for (auto& i : informers_)
    out.push_back(i.get());
  return out;
}

void Workloads::start() {
  for (auto& r : recorders_)
    r->start();
  for (auto& c : controllers_)
    c->start();
}

void Workloads::stop() {
  // Controllers first (they read the caches and record events), then the recorders, then the
  // informers.
  for (auto c = controllers_.rbegin(); c != controllers_.rend(); ++c)
    (*c)->stop();
  for (auto& r : recorders_)
    r->stop();
  for (auto& i : informers_)
    i->stop();
}

}  // namespace respool::sandbox::sim
