#pragma once
// The ReplicaSet controller, and the same controller for ReplicationControllers (as
// kube-controller-manager runs it): claims the pods its selector matches (adopting orphans,
// releasing pods it no longer selects), carries out replicaset_plan.hpp, writes the status.

#include <expected>
#include <string>

#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/pending_pods.hpp"
#include "sandbox/simulator/sim_controller.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {

struct ReplicaKind {
  const kube::Resource* resource;
  std::string api_version;  // "apps/v1" | "v1"
  std::string kind;         // "ReplicaSet" | "ReplicationController"
};

// ReplicaSets select by spec.selector (a LabelSelector); ReplicationControllers by a map that
// defaults to the template's labels.
kube::LabelSelector replica_selector(const Json& set, const ReplicaKind& kind);

class ReplicaController : public SimController {
 public:
  ReplicaController(Cluster& cluster, ObjectInformer& sets, ReplicaKind kind,
                    runtime::EventRecorder& events);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  std::vector<std::string> sets_for_pod(const kube::Unstructured& pod) const;

  ObjectInformer& sets_;
  ReplicaKind kind_;
  runtime::EventRecorder& events_;
  PendingPods pending_;
};

}  // namespace respool::sandbox::sim
