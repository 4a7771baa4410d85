#include "sandbox/simulator/deployment_controller.hpp"

#include "sandbox/simulator/deployment_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_io.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

DeploymentController::DeploymentController(Cluster& cluster, ObjectInformer& deployments,
                                           ObjectInformer& sets, runtime::EventRecorder& events)
    : SimController(cluster, "sandbox-deployment", 2),
      deployments_(deployments),
      sets_(sets),
      events_(events),
      written_(cluster.clock, cluster.timing.expectations_ttl) {
  add_namespace_index(deployments_);
  add_namespace_index(sets_);
  ObjectInformer::Handlers gone;
  gone.on_delete = [this](const ObjectPtr& set) { written_.gone(set->meta.uid.str()); };
  sets_.add_handlers(std::move(gone));
  controller_.watch<kube::Unstructured>(deployments_);
  controller_.watch<kube::Unstructured>(
      sets_, [this](const kube::Unstructured& set) { return deployments_for_set(set); });
  // Recreate waits for the old pods to be gone: their deletion moves it on.
  controller_.watch<kube::Unstructured>(cluster.pods, [this](const kube::Unstructured& pod) {
    const kube::OwnerReference* ref = pod.meta.controller_ref();
    if (!ref || ref->kind != "ReplicaSet") return std::vector<std::string>{};
    if (!pod.meta.deletion_timestamp && !pod_terminal(pod.object))
      return std::vector<std::string>{};
    ObjectPtr set = sets_.store().get(pod.meta.namespace_.str() + "/" + ref->name.str());
    if (!set) return std::vector<std::string>{};
    return deployments_for_set(*set);
  });
}

std::vector<std::string> DeploymentController::deployments_for_set(
    const kube::Unstructured& set) const {
  return claimants(set, "Deployment", deployments_, spec_selector);
}

std::expected<void, std::string> DeploymentController::create_set(const Json& d, const Json& set) {
  const std::string ns = namespace_of(d);
  auto created = cluster_.client.create(workload::replicasets, ns, set);
  if (created) {
    written_.wrote(std::move(*created));
    return {};
  }
  if (!created.error().is(kube::Error::Kind::AlreadyExists))
    return std::unexpected("create " + name_of(set) + ": " + created.error().describe());
  // A slow cache, or a hash collision: a set of that name that is not this template's.
  auto existing = cluster_.client.get(workload::replicasets, ns, name_of(set));
  if (!existing) return std::unexpected("get " + name_of(set) + ": " + existing.error().describe());
  const Json* ref = controller_of(*existing);
  if (ref && ref->value("uid", "") == uid_of(d) &&
      equal_ignore_hash(at_path(*existing, {"spec", "template"}),
                        at_path(d, {"spec", "template"}))) {
    written_.wrote(std::move(*existing));
    return {};
  }
  const auto collisions = int_at(d, {"status", "collisionCount"}, 0) + 1;
  if (auto w = write_status(cluster_.client, kube::resources::deployments, d,
                            [&] {
                              Json s = at_path(d, {"status"});
                              if (!s.is_object()) s = Json::object();
                              s["collisionCount"] = collisions;
                              return s;
                            }());
      !w)
    return std::unexpected(w.error());
  return std::unexpected("hash collision on " + name_of(set) + ": collisionCount now " +
                         std::to_string(collisions));
}

std::expected<ReconcileResult, std::string> DeploymentController::reconcile(
    const std::string& key) {
  ObjectPtr cached = deployments_.store().get(key);
  if (!cached) return ReconcileResult::done();  // its ReplicaSets go by garbage collection
  const Json& d = cached->object;
  const std::string ns = cached->meta.namespace_.str();
  const std::string uid = cached->meta.uid.str();

  std::vector<ObjectPtr> in_namespace = sets_.store().by_index(kByNamespace, ns);
  std::vector<const Json*> candidates;
  for (const auto& s : in_namespace)
    candidates.push_back(&s->object);
  std::string failures;
  Claimed claimed = claim_objects(d, spec_selector(d), candidates);
  std::vector<const Json*> held =
      settle_claims(cluster_.client, workload::replicasets, claimed,
                    controller_reference(d, "apps/v1", "Deployment"), failures);
  std::vector<ObjectPtr> owned;
  for (const auto& s : in_namespace)
    if (std::find(held.begin(), held.end(), &s->object) != held.end()) owned.push_back(s);
  Overlaid sets = written_.overlay(owned, [&](const Json& s) {
    const Json* ref = controller_of(s);
    return ref && ref->value("uid", "") == uid;
  });
  std::vector<ObjectPtr> pod_holders;
  std::vector<const Json*> pods;
  for (const Json* s : sets.objects)
    for (auto& p :
         cluster_.pods.store().by_index(kByOwner, owner_key("ReplicaSet", ns, name_of(*s)))) {
      pods.push_back(&p->object);
      pod_holders.push_back(std::move(p));
    }

  DeploymentPlan plan = plan_deployment(d, sets.objects, pods, cluster_.clock.now());

  if (plan.create) {
    if (auto c = create_set(d, *plan.create); !c)
      return std::unexpected("deployment " + key + ": " + c.error());
  }
  for (const Json& set : plan.update) {
    Json patch = {{"metadata",
                   {{"resourceVersion", string_at(set, {"metadata", "resourceVersion"})},
                    {"annotations", at_path(set, {"metadata", "annotations"})}}},
                  {"spec",
                   {{"replicas", at_path(set, {"spec", "replicas"})},
                    {"minReadySeconds", int_at(set, {"spec", "minReadySeconds"}, 0)}}}};
    auto patched = cluster_.client.patch(workload::replicasets, ns, name_of(set),
                                         kube::PatchType::Merge, patch);
    if (patched) {
      written_.wrote(std::move(*patched));
    } else if (!patched.error().is(kube::Error::Kind::NotFound)) {
      // A conflict means a stale cache: the next round sees the newer set.
      return std::unexpected("deployment " + key + ": scale " + name_of(set) + ": " +
                             patched.error().describe());
    }
  }
  for (const auto& name : plan.remove) {
    const Json* set = nullptr;
    for (const Json* s : sets.objects)
      if (name_of(*s) == name) set = s;
    kube::DeleteOptions options;
    if (set) options.precondition_uid = uid_of(*set);
    auto removed = cluster_.client.remove(workload::replicasets, ns, name, options);
    if (removed || removed.error().is(kube::Error::Kind::NotFound)) {
      if (set) written_.deleted(uid_of(*set));
    } else {
      failures += " delete " + name + ": " + removed.error().describe() + ";";
    }
  }
  Json metadata =
      plan.annotations.is_null() ? Json(nullptr) : Json{{"annotations", plan.annotations}};
  if (auto w =
          write_status(cluster_.client, kube::resources::deployments, d, plan.status, metadata);
      !w)
    failures += " " + w.error() + ";";
  const runtime::ObjectReference regarding{"apps/v1", "Deployment", cached->meta.name, ns, uid};
  for (const auto& e : plan.events)
    events_.event(regarding,
                  e.type == "Warning" ? runtime::EventType::Warning : runtime::EventType::Normal,
                  e.reason, e.reason, e.message);
  if (!failures.empty()) return std::unexpected("deployment " + key + ":" + failures);
  if (plan.recheck > runtime::Duration::zero()) return ReconcileResult::after(plan.recheck);
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
