#include "reconcilers/nodehealth/node_health_reconciler.hpp"

#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/keys.hpp"

namespace respool::reconcilers {

namespace {

std::string codes_text(const std::vector<std::string>& codes) {
  std::string out;
  for (const auto& c : codes) {
    if (!out.empty()) out += ", ";
    out += c;
  }
  return out;
}

}  // namespace

NodeHealthReconciler::NodeHealthReconciler(Context& ctx, runtime::Informer<kube::Node>& nodes,
                                           runtime::Registry& metrics,
                                           std::chrono::seconds heartbeat_period)
    : ctx_(ctx),
      nodes_(nodes),
      heartbeat_period_(heartbeat_period),
      stale_nodes_(metrics.gauge("respool_node_health_stale_nodes",
                                 "Pool nodes whose agent conditions have not been renewed for "
                                 "three heartbeat periods (H16)",
                                 {"pool"})),
      isolations_(metrics.counter("respool_node_health_isolations_total",
                                  "Isolation taints respool added or removed for findings (H15)",
                                  {"code", "action"})) {}

std::vector<policy::AgentCondition> NodeHealthReconciler::agent_conditions(const kube::Node& node) {
  std::vector<policy::AgentCondition> out;
  for (const auto& c : node.conditions) {
    if (std::find(std::begin(policy::kAgentConditionTypes), std::end(policy::kAgentConditionTypes),
                  c.type.view()) == std::end(policy::kAgentConditionTypes))
      continue;
    out.push_back({c.type.str(), c.status.str(), c.reason.str(), c.message, c.heartbeat});
  }
  return out;
}

void NodeHealthReconciler::count_stale(const std::string& node, const std::string& pool,
                                       bool stale) {
  std::lock_guard lock(mu_);
  auto it = stale_.find(node);
  if (it != stale_.end()) stale_nodes_.with({it->second})->dec();
  if (stale) {
    stale_[node] = pool;
    stale_nodes_.with({pool})->inc();
  } else if (it != stale_.end()) {
    stale_.erase(it);
  }
}

Outcome<runtime::ReconcileResult> NodeHealthReconciler::reconcile(const std::string& name) {
  auto node = nodes_.store().get(name);
  const std::string* pool = nullptr;
  std::shared_ptr<const policy::NodeView> shared_view;
  if (node) {
    shared_view = ctx_.node_views->view(node);  // the view every controller shares
    pool = shared_view->label(policy::kPoolLabel);
  }
  if (!node || !pool || shared_view->deleting) {
    count_stale(name, "", false);
    return runtime::ReconcileResult::done();
  }
  const policy::NodeView& view = *shared_view;
  auto catalog = ctx_.catalog->get();
  const std::string* flavor_value = view.label(catalog->flavor_label);
  const policy::Flavor* flavor = flavor_value ? catalog->flavor_by_label(*flavor_value) : nullptr;
  auto conditions = agent_conditions(*node);
  auto decision =
      policy::decide_node_health(view, conditions, flavor, ctx_.clock->now(), heartbeat_period_);
  count_stale(name, *pool, !decision.stale.empty());
  auto patch = policy::node_health_patch(view, decision);
  if (!patch.is_null()) {
    auto written =
        ctx_.client->patch(kube::resources::nodes, "", name, kube::PatchType::Merge, patch);
    if (!written) {
      if (lost_race(written.error())) return runtime::ReconcileResult{true, {}};
      return failed("isolating node " + name, written.error());
    }
    report(*node, view, decision);
  }
  // Heartbeats age without any event: look again when the next one could go stale.
  if (conditions.empty()) return runtime::ReconcileResult::done();
  return runtime::ReconcileResult::after(heartbeat_period_);
}

void NodeHealthReconciler::report(const kube::Node& node, const policy::NodeView& view,
                                  const policy::NodeHealthDecision& d) {
  runtime::ObjectReference node_ref{"v1", "Node", view.name, "", node.meta.uid.str()};
  const std::string pool_name = *view.label(policy::kPoolLabel);
  std::optional<runtime::ObjectReference> pool_ref;
  if (auto pool = ctx_.caches.pools->store().get(pool_name)) pool_ref = reference_to(*pool);
  auto both = [&](runtime::EventType type, const std::string& reason, const std::string& note) {
    ctx_.events->event(node_ref, type, reason, "Isolate", note);
    if (pool_ref) ctx_.events->event(*pool_ref, type, reason, "Isolate", view.name + ": " + note);
  };
  for (const auto& [code, why] : d.reasons) {
    isolations_.with({code, "added"})->inc();
    both(runtime::EventType::Warning, "NodeIsolated",
         "tainted " + policy::isolation_taint_key(code) + ":NoSchedule: " + why);
    runtime::log::warn("nodehealth", "node isolated",
                       {{"node", view.name}, {"pool", pool_name}, {"code", code}, {"why", why}});
  }
  for (const auto& code : d.remove) {
    isolations_.with({code, "removed"})->inc();
    both(runtime::EventType::Normal, "NodeIsolationLifted",
         "removed " + policy::isolation_taint_key(code) + ": the finding cleared");
  }
  auto was = view.annotations.find(policy::kHealthStaleAnnotation);
  const bool was_stale = was != view.annotations.end() && !was->second.empty();
  if (!d.stale.empty() && !was_stale) {
    both(runtime::EventType::Warning, "NodeHealthStale",
         "the node agent has not renewed " + codes_text(d.stale) +
             " for three heartbeat periods: its findings are stale (no isolation changes "
             "meanwhile)");
  }
}

}  // namespace respool::reconcilers
