#include "sandbox/simulator/replicaset_controller.hpp"

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/replicaset_plan.hpp"
#include "sandbox/simulator/workload_io.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

kube::LabelSelector replica_selector(const Json& set, const ReplicaKind& kind) {
  if (kind.kind != "ReplicationController") return spec_selector(set);
  const Json& selector = at_path(set, {"spec", "selector"});
  if (selector.is_object() && !selector.empty()) return map_selector(selector);
  return map_selector(at_path(set, {"spec", "template", "metadata", "labels"}));
}

ReplicaController::ReplicaController(Cluster& cluster, ObjectInformer& sets, ReplicaKind kind,
                                     runtime::EventRecorder& events)
    : SimController(cluster, "sandbox-" + kind.kind, 2),
      sets_(sets),
      kind_(std::move(kind)),
      events_(events),
      pending_(cluster.clock, cluster.timing.expectations_ttl) {
  add_namespace_index(sets_);
  add_namespace_index(cluster.pods);
  pending_.follow(cluster.pods);  // before the controller's handlers: expectations first
  controller_.watch<kube::Unstructured>(sets_);
  controller_.watch<kube::Unstructured>(
      cluster.pods, [this](const kube::Unstructured& pod) { return sets_for_pod(pod); });
}

std::vector<std::string> ReplicaController::sets_for_pod(const kube::Unstructured& pod) const {
  return claimants(pod, kind_.kind, sets_,
                   [this](const Json& set) { return replica_selector(set, kind_); });
}

std::expected<ReconcileResult, std::string> ReplicaController::reconcile(const std::string& key) {
  ObjectPtr cached = sets_.store().get(key);
  if (!cached) return ReconcileResult::done();  // its pods go by garbage collection
  const Json& set = cached->object;
  const std::string ns = cached->meta.namespace_.str();
  const std::string uid = cached->meta.uid.str();

  std::vector<ObjectPtr> in_namespace = cluster_.pods.store().by_index(kByNamespace, ns);
  std::vector<const Json*> candidates;
  for (const auto& p : in_namespace)
    candidates.push_back(&p->object);
  std::string failures;
  Claimed claimed = claim_objects(set, replica_selector(set, kind_), candidates);
  std::vector<const Json*> held =
      settle_claims(cluster_.client, kube::resources::pods, claimed,
                    controller_reference(set, kind_.api_version, kind_.kind), failures);
  std::vector<ObjectPtr> owned;
  for (const auto& p : in_namespace)
    if (std::find(held.begin(), held.end(), &p->object) != held.end()) owned.push_back(p);
  OwnedPods pods = pending_.overlay(uid, owned);

  const auto now = cluster_.clock.now();
  ReplicaSetPlan plan = plan_replicaset(set, pods.pods, now);
  int active = 0;
  for (const Json* p : pods.pods)
    if (pod_is_active(*p)) ++active;
  const int diff = active - static_cast<int>(int_at(set, {"spec", "replicas"}, 1));

  std::string write_failure;
  const runtime::ObjectReference regarding{kind_.api_version, kind_.kind, cached->meta.name, ns,
                                           uid};
  for (const auto& name : plan.remove) {
    const Json* pod = nullptr;
    for (const Json* p : pods.pods)
      if (name_of(*p) == name) pod = p;
    kube::DeleteOptions options;
    if (pod) options.precondition_uid = uid_of(*pod);
    auto removed = cluster_.client.remove(kube::resources::pods, ns, name, options);
    if (removed || removed.error().is(kube::Error::Kind::NotFound)) {
      if (pod) pending_.deleted(uid, uid_of(*pod));
      if (removed)
        events_.event(regarding, runtime::EventType::Normal, "SuccessfulDelete", "Delete",
                      "Deleted pod: " + name);
    } else if (!removed.error().is(kube::Error::Kind::Conflict)) {
      write_failure = removed.error().describe();
      events_.event(regarding, runtime::EventType::Warning, "FailedDelete", "Delete",
                    "Error deleting: " + write_failure);
    }
  }
  for (int i = 0; i < plan.create; ++i) {
    auto created = cluster_.client.create(kube::resources::pods, ns,
                                          replica_pod(set, kind_.api_version, kind_.kind));
    if (!created) {
      write_failure = created.error().describe();
      events_.event(regarding, runtime::EventType::Warning, "FailedCreate", "Create",
                    "Error creating: " + write_failure);
      break;  // as the real controller's slow start: stop at the first failure
    }
    events_.event(regarding, runtime::EventType::Normal, "SuccessfulCreate", "Create",
                  "Created pod: " + name_of(*created));
    pending_.created(uid, std::move(*created));
  }
  if (!write_failure.empty()) failures += " " + write_failure + ";";

  Json status = replicaset_status(set, pods.pods, write_failure, diff, now);
  if (auto w = write_status(cluster_.client, *kind_.resource, set, status); !w)
    failures += " " + w.error() + ";";
  if (!failures.empty()) return std::unexpected(kind_.kind + " " + key + ":" + failures);
  if (plan.recheck > runtime::Duration::zero()) return ReconcileResult::after(plan.recheck);
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
