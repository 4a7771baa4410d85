#pragma once
// The controllers of kube-controller-manager that kubectl's workflows wait for, with the
// informers they read: ReplicaSets and ReplicationControllers, Deployments, StatefulSets,
// CronJobs, Endpoints and EndpointSlices, the kube-root-ca.crt publisher, the tokens of
// hand-made ServiceAccount token Secrets, HorizontalPodAutoscalers (without metrics). (The
// DaemonSet and Job controllers, the scheduler and the kubelets are the Simulator's own.) Made
// before the informers start, so that every handler and index is in place.

#include <memory>
#include <string>
#include <vector>

#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class Workloads {
 public:
  // `ca_pem`: the API server's CA, published in every namespace (kube-root-ca.crt).
  Workloads(Cluster& cluster, std::string ca_pem);
  ~Workloads();
  Workloads(const Workloads&) = delete;
  Workloads& operator=(const Workloads&) = delete;

  // The informers to start (and wait for) with the Simulator's own.
  std::vector<runtime::InformerBase*> informers();
  void start();
  void stop();

 private:
  std::unique_ptr<ObjectInformer> informer(const kube::Resource& resource,
                                           std::string field_selector = {});
  runtime::EventRecorder& recorder(const char* controller);

  Cluster& cluster_;
  std::vector<std::unique_ptr<ObjectInformer>> informers_;
  std::vector<std::unique_ptr<runtime::EventRecorder>> recorders_;
  std::vector<std::unique_ptr<SimController>> controllers_;  // stopped in reverse order
};

}  // namespace respool::sandbox::sim
