#include "reconcilers/network/network_reconciler.hpp"

#include <algorithm>

#include "reconcilers/finalizer.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/keys.hpp"

namespace respool::reconcilers {

using runtime::ReconcileResult;

Outcome<ReconcileResult> NetworkReconciler::reconcile(const std::string& name) {
  auto network = ctx_.caches.networks->store().get(name);
  if (!network) {
    audit_.forget(name);
    return ReconcileResult::done();  // gone: nothing to keep
  }
  // W5: the finalizer keeps the network while pools use it.
  if (!network->meta.deletion_timestamp) {
    auto added = set_finalizer(*ctx_.client, kube::resources::networks, *network,
                               policy::kNetworkFinalizer, true);
    if (!added) return std::unexpected(added.error());
    if (*added != FinalizerWrite::Unchanged) return ReconcileResult::done();  // its event returns
  }
  const Observation o = observe(std::move(network));
  auto decision = decide(o);
  if (!decision) return ReconcileResult::done();
  if (o.network->meta.deletion_timestamp) {
    if (auto released = release(o)) return *released;
  }
  return report(o, *decision);
}

NetworkReconciler::Observation NetworkReconciler::observe(
    std::shared_ptr<const kube::Unstructured> network) const {
  Observation o{std::move(network), {}, {}, ctx_.clock->now()};
  for (const auto& n : ctx_.caches.networks->store().list())
    o.views.push_back(policy::network_view_from_json(n->object));
  std::sort(o.views.begin(), o.views.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  const std::string& name = o.network->meta.name;
  std::vector<std::pair<std::string, std::string>> pool_networks;
  for (const auto& p : ctx_.caches.pools->store().by_index(kByNetwork, name))
    pool_networks.emplace_back(p->meta.name, name);
  o.used_by = policy::pools_using(name, pool_networks);
  return o;
}

std::optional<NetworkReconciler::Decision> NetworkReconciler::decide(const Observation& o) const {
  // Verdicts for every network at once (W1–W4).
  auto verdicts = policy::decide_networks(o.views, ctx_.catalog->get()->network_presets);
  const std::string& name = o.network->meta.name;
  auto view =
      std::find_if(o.views.begin(), o.views.end(), [&](const auto& v) { return v.name == name; });
  auto verdict =
      std::find_if(verdicts.begin(), verdicts.end(), [&](const auto& v) { return v.name == name; });
  if (view == o.views.end() || verdict == verdicts.end()) return std::nullopt;
  return Decision{*view, *verdict};
}

std::optional<Outcome<ReconcileResult>> NetworkReconciler::release(const Observation& o) {
  const auto& network = *o.network;
  auto deletion = policy::network_deletion(network.meta.name, o.used_by);
  if (!deletion.release) {
    ctx_.events->event(reference_to(network), runtime::EventType::Warning, "InUse", "Delete",
                       deletion.message);
    return std::nullopt;
  }
  // The record written ahead of the write that lets the network go (A1, AuditAhead).
  if (has_finalizer(network.meta, policy::kNetworkFinalizer))
    audit_.write(network.meta,
                 {policy::AuditOperation::DeleteNetworksV1, network.meta.name, std::nullopt,
                  std::nullopt, o.now, policy::AuditResult::Success, "network released"});
  auto removed = set_finalizer(*ctx_.client, kube::resources::networks, network,
                               policy::kNetworkFinalizer, false);
  if (!removed) return std::unexpected(removed.error());
  if (*removed == FinalizerWrite::Conflict) return ReconcileResult{true, {}};
  if (*removed == FinalizerWrite::Unchanged) return ReconcileResult::done();
  ctx_.events->event(reference_to(network), runtime::EventType::Normal, "DeleteNetworksV1",
                     "Delete", "Network deleted: no pool uses it.");
  return ReconcileResult::done();
}

Outcome<ReconcileResult> NetworkReconciler::report(const Observation& o, const Decision& d) {
  const auto& network = *o.network;
  const kube::Json current = network.object.value("status", kube::Json::object());
  auto previous = policy::conditions_from_json(current.value("conditions", kube::Json::array()));
  auto status = policy::network_status(d.view, d.verdict, o.used_by, previous, o.now);
  kube::Json next = policy::to_json(status);
  if (next == current) return ReconcileResult::done();
  audit_spec_change(o, d);
  kube::Json updated = network.object;
  updated["status"] = next;
  auto r = ctx_.client->update_status(kube::resources::networks, "", updated);
  if (!r) {
    if (lost_race(r.error())) return ReconcileResult{true, {}};
    return failed("writing the status of Network " + network.meta.name, r.error());
  }
  report_change(o, previous, status);
  return ReconcileResult::done();
}

void NetworkReconciler::report_change(const Observation& o,
                                      const std::vector<policy::Condition>& previous,
                                      const policy::NetworkStatus& status) {
  const auto& network = *o.network;
  // Events for a Ready condition that changed.
  const auto* was = policy::find_condition(previous, "Ready");
  const auto* is = policy::find_condition(status.conditions, "Ready");
  if (is && (!was || was->status != is->status || was->reason != is->reason)) {
    ctx_.events->event(
        reference_to(network),
        is->status == "True" ? runtime::EventType::Normal : runtime::EventType::Warning, is->reason,
        "Reconcile", is->message);
  }
}

// A1: a create or update, written ahead of the status whose observedGeneration acknowledges it.
void NetworkReconciler::audit_spec_change(const Observation& o, const Decision& d) {
  const auto& network = *o.network;
  auto op = policy::audited_spec_change(policy::AuditedKind::Network,
                                        network.object.value("status", kube::Json::object()),
                                        network.meta.generation);
  if (!op) return;
  audit_.write(network.meta,
               {*op, network.meta.name, std::nullopt, policy::spec_manager(network.object), o.now,
                d.verdict.ready ? policy::AuditResult::Success : policy::AuditResult::Failure,
                d.verdict.ready ? "network ready" : d.verdict.message});
}

}  // namespace respool::reconcilers
