#include "sandbox/simulator/daemonset_controller.hpp"

#include "sandbox/simulator/daemonset_history.hpp"
#include "sandbox/simulator/daemonset_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/template_hash.hpp"
#include "sandbox/simulator/workload_io.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

DaemonSetController::DaemonSetController(Cluster& cluster)
    : SimController(cluster, "sandbox-daemonset", 2),
      pending_(cluster.clock, cluster.timing.expectations_ttl) {
  pending_.follow(cluster.pods);  // before the controller's handlers: expectations first
  controller_.watch<kube::Unstructured>(cluster.daemonsets);
  controller_.watch<kube::Unstructured>(cluster.pods, controlled_by("DaemonSet"));
  add_namespace_index(cluster.controllerrevisions);
  controller_.watch<kube::Unstructured>(cluster.controllerrevisions, controlled_by("DaemonSet"));
  controller_.watch<kube::Unstructured>(cluster.nodes, [&cluster](const kube::Unstructured&) {
    return cluster.daemonsets.store().keys();
  });
}

void DaemonSetController::write_history(const DaemonSetHistoryPlan& plan, const std::string& ns,
                                        std::string& failures) {
  const kube::Resource& revisions = workload::controllerrevisions;
  if (plan.create) {
    auto created = cluster_.client.create(revisions, ns, *plan.create);
    if (!created && !created.error().is(kube::Error::Kind::AlreadyExists))
      failures += " revision " + name_of(*plan.create) + ": " + created.error().describe() + ";";
  }
  if (plan.renumber) {
    auto patched =
        cluster_.client.patch(revisions, ns, name_of(*plan.renumber), kube::PatchType::Merge,
                              {{"revision", (*plan.renumber)["revision"]}});
    if (!patched && !patched.error().is(kube::Error::Kind::NotFound))
      failures += " revision " + name_of(*plan.renumber) + ": " + patched.error().describe() + ";";
  }
  for (const auto& name : plan.remove) {
    auto removed = cluster_.client.remove(revisions, ns, name);
    if (!removed && !removed.error().is(kube::Error::Kind::NotFound))
      failures += " delete revision " + name + ": " + removed.error().describe() + ";";
  }
}

std::expected<ReconcileResult, std::string> DaemonSetController::reconcile(const std::string& key) {
  ObjectPtr cached = cluster_.daemonsets.store().get(key);
  if (!cached || cached->meta.deletion_timestamp) return ReconcileResult::done();
  const Json& ds = cached->object;
  const std::string ns = cached->meta.namespace_.str();

  std::vector<ObjectPtr> owned;
  for (auto& pod :
       cluster_.pods.store().by_index(kByOwner, owner_key("DaemonSet", ns, cached->meta.name))) {
    const kube::OwnerReference* ref = pod->meta.controller_ref();
    if (ref && ref->uid.view() == cached->meta.uid.view()) owned.push_back(std::move(pod));
  }
  OwnedPods pods = pending_.overlay(cached->meta.uid.str(), owned);
  std::vector<ObjectPtr> nodes = cluster_.nodes.store().list();
  std::vector<const Json*> node_objects;
  for (const auto& n : nodes)
    node_objects.push_back(&n->object);
  const auto now = cluster_.clock.now();
  DaemonSetPlan plan = plan_daemonset(ds, node_objects, pods.pods, now);

  std::string failures;
  const std::string hash = template_hash(at_path(ds, {"spec", "template"}));
  std::vector<ObjectPtr> owned_revisions;
  std::vector<const Json*> revisions;
  for (auto& r : cluster_.controllerrevisions.store().by_index(kByNamespace, ns)) {
    const kube::OwnerReference* ref = r->meta.controller_ref();
    if (ref && ref->uid.view() == cached->meta.uid.view()) owned_revisions.push_back(std::move(r));
  }
  for (const auto& r : owned_revisions)
    revisions.push_back(&r->object);
  write_history(plan_daemonset_history(ds, revisions, pods.pods, hash), ns, failures);
  for (const auto& node : plan.create_on) {
    auto created = cluster_.client.create(kube::resources::pods, ns, daemon_pod(ds, node, hash));
    if (created) {
      pending_.created(cached->meta.uid.str(), std::move(*created));
    } else {
      failures += " create on " + node + ": " + created.error().describe() + ";";
    }
  }
  for (const auto& name : plan.remove) {
    const Json* pod = nullptr;
    for (const Json* p : pods.pods)
      if (string_at(*p, {"metadata", "name"}) == name) pod = p;
    kube::DeleteOptions options;
    options.precondition_uid = pod ? string_at(*pod, {"metadata", "uid"}) : std::string();
    if (!pod) options.precondition_uid.reset();
    auto removed = cluster_.client.remove(kube::resources::pods, ns, name, options);
    if (removed || removed.error().is(kube::Error::Kind::NotFound)) {
      if (pod) pending_.deleted(cached->meta.uid.str(), string_at(*pod, {"metadata", "uid"}));
    } else if (!removed.error().is(kube::Error::Kind::Conflict)) {
      failures += " delete " + name + ": " + removed.error().describe() + ";";
    }
  }
  const Json& current = at_path(ds, {"status"});
  if (plan.status != current) {
    // A merge patch: the status is this controller's alone and derived from the caches, so a
    // stale resourceVersion is no reason to refuse it (and conflicts would only add retries).
    Json status = plan.status;
    if (current.is_object()) {
      for (auto it = current.begin(); it != current.end(); ++it)
        if (!status.contains(it.key())) status[it.key()] = nullptr;
    }
    kube::WriteOptions options;
    options.subresource = "status";
    auto written = cluster_.client.patch(kube::resources::daemonsets, ns, cached->meta.name,
                                         kube::PatchType::Merge, {{"status", status}}, options);
    if (!written && !written.error().is(kube::Error::Kind::NotFound))
      failures += " status: " + written.error().describe() + ";";
  }
  if (!failures.empty()) return std::unexpected("daemonset " + key + ":" + failures);
  if (plan.recheck > runtime::Duration::zero()) return ReconcileResult::after(plan.recheck);
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
