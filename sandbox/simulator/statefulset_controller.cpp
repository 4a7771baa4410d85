#include "sandbox/simulator/statefulset_controller.hpp"

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/statefulset_plan.hpp"
#include "sandbox/simulator/workload_io.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

StatefulSetController::StatefulSetController(Cluster& cluster, ObjectInformer& sets,
                                             ObjectInformer& revisions,
                                             runtime::EventRecorder& events)
    : SimController(cluster, "sandbox-statefulset", 2),
      sets_(sets),
      revisions_(revisions),
      events_(events),
      pending_(cluster.clock, cluster.timing.expectations_ttl),
      written_(cluster.clock, cluster.timing.expectations_ttl) {
  add_namespace_index(sets_);
  add_namespace_index(revisions_);
  add_namespace_index(cluster.pods);
  pending_.follow(cluster.pods);  // before the controller's handlers: expectations first
  ObjectInformer::Handlers gone;
  gone.on_delete = [this](const ObjectPtr& r) { written_.gone(r->meta.uid.str()); };
  revisions_.add_handlers(std::move(gone));
  controller_.watch<kube::Unstructured>(sets_);
  auto map = [this](const kube::Unstructured& object) { return sets_for(object); };
  controller_.watch<kube::Unstructured>(cluster.pods, map);
  controller_.watch<kube::Unstructured>(revisions_, map);
}

std::vector<std::string> StatefulSetController::sets_for(const kube::Unstructured& object) const {
  return claimants(object, "StatefulSet", sets_, spec_selector);
}

std::expected<void, std::string> StatefulSetController::write_revision(const Json& set,
                                                                       const Json& revision,
                                                                       bool create) {
  const std::string ns = namespace_of(set);
  if (!create) {
    auto patched = cluster_.client.patch(
        workload::controllerrevisions, ns, name_of(revision), kube::PatchType::Merge,
        {{"metadata", {{"resourceVersion", string_at(revision, {"metadata", "resourceVersion"})}}},
         {"revision", revision["revision"]}});
    if (!patched)
      return std::unexpected("revision " + name_of(revision) + ": " + patched.error().describe());
    written_.wrote(std::move(*patched));
    return {};
  }
  auto created = cluster_.client.create(workload::controllerrevisions, ns, revision);
  if (created) {
    written_.wrote(std::move(*created));
    return {};
  }
  if (!created.error().is(kube::Error::Kind::AlreadyExists))
    return std::unexpected("revision " + name_of(revision) + ": " + created.error().describe());
  auto existing = cluster_.client.get(workload::controllerrevisions, ns, name_of(revision));
  if (!existing)
    return std::unexpected("revision " + name_of(revision) + ": " + existing.error().describe());
  const Json* ref = controller_of(*existing);
  if (ref && ref->value("uid", "") == uid_of(set) &&
      semantic_equal(at_path(*existing, {"data"}), at_path(revision, {"data"}))) {
    written_.wrote(std::move(*existing));
    return {};
  }
  // A hash collision: the next revision is named with a higher collisionCount.
  Json status = at_path(set, {"status"});
  if (!status.is_object()) status = Json::object();
  status["collisionCount"] = int_at(set, {"status", "collisionCount"}, 0) + 1;
  if (auto w = write_status(cluster_.client, workload::statefulsets, set, status); !w)
    return std::unexpected(w.error());
  return std::unexpected("revision " + name_of(revision) + " collides; collisionCount raised");
}

std::expected<void, std::string> StatefulSetController::ensure_claims(const Json& set,
                                                                      int ordinal) {
  for (const Json& claim : statefulset_claims(set, ordinal)) {
    auto got =
        cluster_.client.get(workload::persistentvolumeclaims, namespace_of(set), name_of(claim));
    if (got) continue;
    if (!got.error().is(kube::Error::Kind::NotFound))
      return std::unexpected("claim " + name_of(claim) + ": " + got.error().describe());
    auto created =
        cluster_.client.create(workload::persistentvolumeclaims, namespace_of(set), claim);
    if (!created && !created.error().is(kube::Error::Kind::AlreadyExists))
      return std::unexpected("claim " + name_of(claim) + ": " + created.error().describe());
    if (created)
      events_.event({"apps/v1", "StatefulSet", name_of(set), namespace_of(set), uid_of(set)},
                    runtime::EventType::Normal, "SuccessfulCreate", "Create",
                    "create Claim " + name_of(claim) + " Pod " + name_of(set) + "-" +
                        std::to_string(ordinal) + " in StatefulSet " + name_of(set) + " success");
  }
  return {};
}

std::expected<ReconcileResult, std::string> StatefulSetController::reconcile(
    const std::string& key) {
  ObjectPtr cached = sets_.store().get(key);
  if (!cached) return ReconcileResult::done();  // pods and revisions go by garbage collection
  const Json& set = cached->object;
  const std::string ns = cached->meta.namespace_.str();
  const std::string uid = cached->meta.uid.str();
  const Json owner = controller_reference(set, "apps/v1", "StatefulSet");
  const kube::LabelSelector selector = spec_selector(set);
  std::string failures;

  auto claim = [&](ObjectInformer& informer, const kube::Resource& resource) {
    std::vector<ObjectPtr> all = informer.store().by_index(kByNamespace, ns);
    std::vector<const Json*> candidates;
    for (const auto& o : all)
      candidates.push_back(&o->object);
    std::vector<const Json*> held = settle_claims(
        cluster_.client, resource, claim_objects(set, selector, candidates), owner, failures);
    std::vector<ObjectPtr> owned;
    for (const auto& o : all)
      if (std::find(held.begin(), held.end(), &o->object) != held.end()) owned.push_back(o);
    return owned;
  };
  OwnedPods pods = pending_.overlay(uid, claim(cluster_.pods, kube::resources::pods));
  Overlaid revisions =
      written_.overlay(claim(revisions_, workload::controllerrevisions), [&](const Json& r) {
        const Json* ref = controller_of(r);
        return ref && ref->value("uid", "") == uid;
      });
  StatefulSetPlan plan = plan_statefulset(set, pods.pods, revisions.objects, cluster_.clock.now());

  if (plan.create_revision) {
    if (auto w = write_revision(set, *plan.create_revision, true); !w)
      return std::unexpected("statefulset " + key + ": " + w.error());
  }
  if (plan.renumber_revision) {
    if (auto w = write_revision(set, *plan.renumber_revision, false); !w)
      return std::unexpected("statefulset " + key + ": " + w.error());
  }
  const runtime::ObjectReference regarding{"apps/v1", "StatefulSet", cached->meta.name, ns, uid};
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
        events_.event(
            regarding, runtime::EventType::Normal, "SuccessfulDelete", "Delete",
            "delete Pod " + name + " in StatefulSet " + cached->meta.name + " successful");
    } else if (!removed.error().is(kube::Error::Kind::Conflict)) {
      failures += " delete " + name + ": " + removed.error().describe() + ";";
    }
  }
  for (const Json& pod : plan.create) {
    const int ordinal = statefulset_ordinal(cached->meta.name, name_of(pod));
    if (auto c = ensure_claims(set, ordinal); !c) {
      failures += " " + c.error() + ";";
      break;
    }
    auto created = cluster_.client.create(kube::resources::pods, ns, pod);
    if (!created) {
      if (created.error().is(kube::Error::Kind::AlreadyExists)) continue;  // a slow cache
      failures += " create " + name_of(pod) + ": " + created.error().describe() + ";";
      break;
    }
    events_.event(
        regarding, runtime::EventType::Normal, "SuccessfulCreate", "Create",
        "create Pod " + name_of(pod) + " in StatefulSet " + cached->meta.name + " successful");
    pending_.created(uid, std::move(*created));
  }
  for (const auto& name : plan.remove_revisions) {
    auto removed = cluster_.client.remove(workload::controllerrevisions, ns, name);
    if (!removed && !removed.error().is(kube::Error::Kind::NotFound))
      failures += " delete revision " + name + ": " + removed.error().describe() + ";";
  }
  if (auto w = write_status(cluster_.client, workload::statefulsets, set, plan.status); !w)
    failures += " " + w.error() + ";";
  if (!failures.empty()) return std::unexpected("statefulset " + key + ":" + failures);
  if (plan.recheck > runtime::Duration::zero()) return ReconcileResult::after(plan.recheck);
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
