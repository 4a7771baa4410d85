// The pool reconciler's writes on nodes: admission (F3), claims (P6, N9), job-type labels (P12),
// drains through evictions and releases (P10, P14).
#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/driver_daemonset.hpp"
#include "reconcilers/policy/driver_upgrade.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_patch.hpp"
#include "reconcilers/resourcepool/pool_reconciler.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

void audit_node(policy::AuditOperation op, const std::string& pool, const std::string& node,
                runtime::TimePoint now, std::string message,
                policy::AuditResult result = policy::AuditResult::Success) {
  policy::AuditRecord audit{op, pool, node, std::nullopt, now, result, std::move(message)};
  write_audit(policy::audit_line(audit));
}

}  // namespace

Outcome<void> PoolReconciler::admit(const std::string& pool, std::vector<ObservedNode>& nodes,
                                    const policy::Catalog& catalog,
                                    const policy::ResourcePoolSpec& spec, Effects& out) {
  for (auto& n : nodes) {
    if (n.pool_node.state.state != policy::NodeState::Creating) continue;
    const policy::Flavor* flavor = catalog.flavor(n.pool_node.flavor);
    if (!policy::admission_complete(*n.view, flavor)) continue;
    // A new node runs the pool's driver version before it turns Available (issue 14): its label
    // at the target and, once the upgrade has marked it (a node claimed mid-upgrade, a reset
    // one), validated there (upgrade-done). Unless it is left out of upgrades.
    const std::string target = policy::driver_target(catalog, spec, n.pool_node.flavor);
    const std::string* running = n.view->label(policy::kDriverVersionLabel);
    const std::string* state = n.view->label(policy::kDriverUpgradeStateLabel);
    const std::string* skip = n.view->label(policy::kDriverUpgradeSkipLabel);
    const bool settled = !state || *state == policy::to_string(policy::UpgradeState::Done);
    if (!target.empty() && !(skip && *skip == "true") &&
        (!running || *running != target || !settled))
      continue;
    kube::Json patch = policy::admission_done_patch(*n.view);
    if (patch.is_null()) continue;
    auto r =
        ctx_.client->patch(kube::resources::nodes, "", n.view->name, kube::PatchType::Merge, patch);
    if (!r) {
      if (lost_race(r.error())) {
        out.busy = true;
        continue;
      }
      return failed("ending admission of node " + n.view->name, r.error());
    }
    // The node is Available now: take it out of the P6 window for this round's plan.
    auto admitted = std::make_shared<policy::NodeView>(*n.view);
    std::erase_if(admitted->taints, [](const auto& t) {
      return t.key == policy::isolation_taint_key(policy::kAdmissionCode);
    });
    n.view = admitted;
    n.pool_node = policy::pool_node(*n.view, catalog, n.pool_node.running_jobs);
    out.admitted.push_back(n.view->name);
    runtime::log::info("resourcepool", "node admitted", {{"pool", pool}, {"node", n.view->name}});
  }
  return {};
}

Outcome<void> PoolReconciler::claim(const std::string& pool, const policy::ResourcePoolSpec& spec,
                                    const policy::PoolPlan& plan, Effects& out) {
  const auto now = ctx_.clock->now();
  for (const auto& c : plan.claims) {
    auto node = ctx_.caches.nodes->store().get(c.node);
    if (!node || node->meta.resource_version != c.resource_version) {
      out.busy = true;  // changed since it was planned: the next round plans again
      continue;
    }
    kube::Json patch = policy::claim_patch(*ctx_.node_views->view(node), pool, spec.job_types,
                                           c.container_engine_space_gib, c.replaces);
    auto r = ctx_.client->patch(kube::resources::nodes, "", c.node, kube::PatchType::Merge, patch);
    if (!r) {
      // Another pool took it, or it changed since we saw it: the next round plans again.
      if (lost_race(r.error())) {
        out.busy = true;
        continue;
      }
      return failed("claiming node " + c.node, r.error());
    }
    ctx_.node_writes->wrote_answer(pool, c.node, *r, now);
    out.claimed.push_back(c.node);
    audit_node(policy::AuditOperation::addClusterNode, pool, c.node, now,
               "claimed node of flavor " + c.flavor + (c.zone.empty() ? "" : " in zone " + c.zone) +
                   (c.replaces.empty() ? "" : " in place of deleted node " + c.replaces));
  }
  if (!out.claimed.empty()) {
    runtime::log::info("resourcepool", "claimed nodes", {{"pool", pool}, {"nodes", out.claimed}});
  }
  return {};
}

// A claim is audited right after its write, and recorded by the status write that follows. An
// operator killed (or deposed) in between leaves a node in admission that no record names, and
// maybe no audit line: the next run audits and records it, on its first look at the pool. At least
// once, then: a run stopped after its audit line and before the status write leaves that node two
// lines, the second saying it was audited on recovery.
void PoolReconciler::recover_claims(const std::string& pool, const std::vector<ObservedNode>& nodes,
                                    const std::vector<policy::Record>& records,
                                    policy::Operation operation, Effects& out) {
  // The first look comes before this run's first claim in the pool (both only where the spec
  // is valid, the look first), so every node in admission was claimed by an earlier run.
  if (!unrecorded_.first_look(pool)) return;
  // Nodes in admission because of a node operation (a replacement, a reset node re-admitted)
  // were not claimed by the pool: the operation audits and records them.
  std::vector<std::string> admitting;
  for (const auto& n : nodes) {
    const bool operated =
        n.pool_node.operation || n.view->annotations.contains(policy::kReplacementForAnnotation);
    if (n.pool_node.state.state == policy::NodeState::Creating && !operated)
      admitting.push_back(n.view->name);
  }
  const auto now = ctx_.clock->now();
  for (const auto& node : policy::unrecorded_claims(records, operation, admitting)) {
    audit_node(policy::AuditOperation::addClusterNode, pool, node, now,
               "claimed by an earlier run of the operator that stopped before recording it; "
               "audited on recovery");
    out.claimed.push_back(node);
    runtime::log::info("resourcepool", "recovered an unrecorded claim",
                       {{"pool", pool}, {"node", node}});
  }
}

Outcome<void> PoolReconciler::set_job_types(const policy::ResourcePoolSpec& spec,
                                            const std::vector<ObservedNode>& nodes, Effects& out) {
  for (const auto& n : nodes) {
    if (n.pool_node.state.state == policy::NodeState::Deleting) continue;
    kube::Json patch = policy::job_types_patch(*n.view, spec.job_types);
    if (patch.is_null()) continue;
    out.relabelled.push_back(n.view->name);  // a job-type change goes on while any node differs
    auto r =
        ctx_.client->patch(kube::resources::nodes, "", n.view->name, kube::PatchType::Merge, patch);
    if (!r && !lost_race(r.error())) {
      return failed("setting job types on node " + n.view->name, r.error());
    }
  }
  return {};
}

Outcome<void> PoolReconciler::keep(const std::vector<std::string>& names,
                                   const std::vector<ObservedNode>& nodes, Effects& out) {
  for (const auto& name : names) {
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const auto& n) { return n.view->name == name; });
    if (it == nodes.end()) continue;
    kube::Json patch = policy::keep_patch(*it->view);
    if (patch.is_null()) continue;
    out.busy = true;
    auto r = ctx_.client->patch(kube::resources::nodes, "", name, kube::PatchType::Merge, patch);
    if (!r && !lost_race(r.error())) return failed("keeping node " + name, r.error());
    runtime::log::info("resourcepool", "release undone: the group needs the node again",
                       {{"node", name}});
  }
  return {};
}

Outcome<void> PoolReconciler::release(const std::string& pool,
                                      const std::vector<std::string>& names,
                                      const std::vector<ObservedNode>& nodes, Effects& out) {
  const auto now = ctx_.clock->now();
  for (const auto& name : names) {
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const auto& n) { return n.view->name == name; });
    if (it == nodes.end()) continue;
    const policy::NodeView& view = *it->view;
    out.busy = true;
    // 1. No new job lands on it (and the choice survives a restart).
    kube::Json mark = policy::releasing_patch(view);
    if (!mark.is_null()) {
      auto r = ctx_.client->patch(kube::resources::nodes, "", name, kube::PatchType::Merge, mark);
      if (!r) {
        if (lost_race(r.error())) continue;
        return failed("marking node " + name + " for release", r.error());
      }
      continue;  // drain once the cache shows the mark
    }
    // 2. Drain: evict what runs there, honouring PodDisruptionBudgets.
    int remaining = 0;
    for (const auto& pod : ctx_.caches.pods->store().by_index(kByNode, name)) {
      if (pod->terminal() || pod->owned_by_daemonset()) continue;
      ++remaining;
      if (pod->meta.deletion_timestamp) continue;  // already going
      auto r = ctx_.client->evict(pod->meta.namespace_.view(), pod->meta.name);
      if (!r) {
        if (r.error().is(kube::Error::Kind::TooManyRequests)) {
          out.scale_in_blocked = "evicting pod " + pod->meta.key() + " from node " + name +
                                 " is blocked: " + r.error().message;
        } else if (!r.error().is(kube::Error::Kind::NotFound)) {
          return failed("evicting pod " + pod->meta.key(), r.error());
        }
      }
    }
    if (remaining > 0) continue;
    // 3. Release: everything respool added goes; the node is free again. Audited before the
    // write: once the node is free nothing on it or in the pool says it was released, so a run
    // stopped between the write and its audit line lost the record for good (found by the
    // soak). At least once, then: a write that fails is audited as failed and tried again.
    audit_node(policy::AuditOperation::deleteClusterNode, pool, name, now, "released node");
    kube::Json patch = policy::release_patch(view);
    auto r = ctx_.client->patch(kube::resources::nodes, "", name, kube::PatchType::Merge, patch);
    if (!r) {
      audit_node(policy::AuditOperation::deleteClusterNode, pool, name, now,
                 "release not written (" + r.error().describe() + "); tried again",
                 policy::AuditResult::Failure);
      if (lost_race(r.error())) continue;
      return failed("releasing node " + name, r.error());
    }
    ctx_.node_writes->wrote_answer(pool, name, *r, now);
    out.released.push_back(name);
    runtime::log::info("resourcepool", "released node", {{"pool", pool}, {"node", name}});
  }
  return {};
}

}  // namespace respool::reconcilers
