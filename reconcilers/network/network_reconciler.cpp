#include "reconcilers/network/network_reconciler.hpp"

#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/network.hpp"

namespace respool::reconcilers {

namespace {

bool has_finalizer(const kube::Unstructured& o, std::string_view f) {
  return std::find(o.meta.finalizers.begin(), o.meta.finalizers.end(), f) !=
         o.meta.finalizers.end();
}

// The finalizer list with `f` added or removed, guarded by the observed resourceVersion.
kube::Json finalizer_patch(const kube::Unstructured& o, std::string_view f, bool present) {
  kube::Json list = kube::Json::array();
  for (const auto& existing : o.meta.finalizers) {
    if (existing != f) list.push_back(existing);
  }
  if (present) list.push_back(f);
  return {{"metadata", {{"finalizers", list}, {"resourceVersion", o.meta.resource_version}}}};
}

}  // namespace

std::expected<runtime::ReconcileResult, std::string> NetworkReconciler::reconcile(
    const std::string& name) {
  auto object = ctx_.caches.networks->store().get(name);
  if (!object) return runtime::ReconcileResult::done();  // gone: nothing to keep
  const auto& network = *object;
  const bool deleting = network.meta.deletion_timestamp.has_value();
  const auto now = ctx_.clock->now();
  auto& client = *ctx_.client;
  const auto& res = kube::resources::networks;

  // W5: the finalizer keeps the network while pools use it.
  if (!deleting && !has_finalizer(network, policy::kNetworkFinalizer)) {
    auto r = client.patch(res, "", name, kube::PatchType::Merge,
                          finalizer_patch(network, policy::kNetworkFinalizer, true));
    if (!r && !r.error().is(kube::Error::Kind::Conflict) &&
        !r.error().is(kube::Error::Kind::NotFound)) {
      return std::unexpected("adding the finalizer: " + r.error().describe());
    }
    return runtime::ReconcileResult::done();  // the update event brings us back
  }

  // Verdicts for every network at once (W1–W4).
  std::vector<policy::NetworkView> views;
  for (const auto& n : ctx_.caches.networks->store().list()) {
    views.push_back(policy::network_view_from_json(n->object));
  }
  std::sort(views.begin(), views.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  auto catalog = ctx_.catalog->get();
  auto verdicts = policy::decide_networks(views, catalog->network_presets);
  auto view =
      std::find_if(views.begin(), views.end(), [&](const auto& v) { return v.name == name; });
  auto verdict =
      std::find_if(verdicts.begin(), verdicts.end(), [&](const auto& v) { return v.name == name; });
  if (view == views.end() || verdict == verdicts.end()) return runtime::ReconcileResult::done();

  std::vector<std::pair<std::string, std::string>> pool_networks;
  for (const auto& p : ctx_.caches.pools->store().by_index(kByNetwork, name)) {
    pool_networks.emplace_back(p->meta.name, name);
  }
  auto used_by = policy::pools_using(name, pool_networks);

  const kube::Json current_status = network.object.value("status", kube::Json::object());
  std::optional<std::int64_t> observed;
  if (current_status.contains("observedGeneration"))
    observed = current_status["observedGeneration"].get<std::int64_t>();

  if (deleting) {
    auto deletion = policy::network_deletion(name, used_by);
    if (deletion.release) {
      if (has_finalizer(network, policy::kNetworkFinalizer)) {
        auto r = client.patch(res, "", name, kube::PatchType::Merge,
                              finalizer_patch(network, policy::kNetworkFinalizer, false));
        if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
          if (r.error().is(kube::Error::Kind::Conflict)) return runtime::ReconcileResult{true, {}};
          return std::unexpected("removing the finalizer: " + r.error().describe());
        }
        policy::AuditRecord audit{policy::AuditOperation::DeleteNetworksV1,
                                  name,
                                  std::nullopt,
                                  std::nullopt,
                                  now,
                                  policy::AuditResult::Success,
                                  "network released"};
        write_audit(policy::audit_line(audit));
        ctx_.events->event(reference_to(network), runtime::EventType::Normal, "DeleteNetworksV1",
                           "Delete", "Network deleted: no pool uses it.");
      }
      return runtime::ReconcileResult::done();
    }
    ctx_.events->event(reference_to(network), runtime::EventType::Warning, "InUse", "Delete",
                       deletion.message);
  }

  auto previous =
      policy::conditions_from_json(current_status.value("conditions", kube::Json::array()));
  auto status = policy::network_status(*view, *verdict, used_by, previous, now);
  kube::Json next = policy::to_json(status);
  if (next != current_status) {
    kube::Json updated = network.object;
    updated["status"] = next;
    auto r = client.update_status(res, "", updated);
    if (!r) {
      if (r.error().is(kube::Error::Kind::Conflict) || r.error().is(kube::Error::Kind::NotFound)) {
        return runtime::ReconcileResult{true, {}};
      }
      return std::unexpected("writing the status: " + r.error().describe());
    }
    // Events for a Ready condition that changed.
    const auto* was = policy::find_condition(previous, "Ready");
    const auto* is = policy::find_condition(status.conditions, "Ready");
    if (is && (!was || was->status != is->status || was->reason != is->reason)) {
      ctx_.events->event(
          reference_to(network),
          is->status == "True" ? runtime::EventType::Normal : runtime::EventType::Warning,
          is->reason, "Reconcile", is->message);
    }
    // A1: a create or update, once its status says we saw it.
    if (auto op = policy::audited_change(policy::AuditedKind::Network, observed,
                                         network.meta.generation, false, false)) {
      policy::AuditRecord audit{
          *op,
          name,
          std::nullopt,
          std::nullopt,
          now,
          verdict->ready ? policy::AuditResult::Success : policy::AuditResult::Failure,
          verdict->ready ? "network ready" : verdict->message};
      write_audit(policy::audit_line(audit));
    }
  }
  return runtime::ReconcileResult::done();
}

}  // namespace respool::reconcilers
