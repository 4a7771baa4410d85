// P14: deleting a pool drains and releases every node, removes the plug-ins, leaves the network
// (whose usedBy then drops the pool), and only then lets the object go.
#include "operator/runtime/log.hpp"
#include "reconcilers/finalizer.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/pool_events.hpp"
#include "reconcilers/policy/records.hpp"
#include "reconcilers/resourcepool/pool_reconciler.hpp"

namespace respool::reconcilers {

Outcome<runtime::ReconcileResult> PoolReconciler::reconcile_deletion(
    const kube::Unstructured& pool, std::vector<ObservedNode>& nodes) {
  const std::string& name = pool.meta.name;
  const auto now = ctx_.clock->now();
  if (!has_finalizer(pool.meta, policy::kPoolFinalizer))
    return runtime::ReconcileResult::done();  // not ours to hold any more

  Effects outcome;
  std::vector<std::string> names;
  for (const auto& n : nodes)
    names.push_back(n.view->name);
  if (auto r = release(name, names, nodes, outcome); !r) return std::unexpected(r.error());
  auto plugins_gone = remove_plugins(name);
  if (!plugins_gone) return std::unexpected(plugins_gone.error());

  if (!nodes.empty() || !*plugins_gone) {
    const kube::Json old_status = pool.object.value("status", kube::Json::object());
    auto records = policy::records_from_json(old_status.value("records", kube::Json::array()));
    policy::begin_record(records, policy::Operation::Delete, now, "deleting the pool");
    policy::note_nodes(records, policy::Operation::Delete, outcome.released);
    std::vector<policy::PoolNode> reported;
    for (const auto& n : nodes)
      reported.push_back(n.pool_node);
    policy::PoolObservation observation;
    observation.generation = pool.meta.generation;
    observation.previous_phase = policy::parse_pool_phase(old_status.value("phase", ""));
    observation.deleting = true;
    observation.nodes = reported;
    observation.scale_in_blocked = outcome.scale_in_blocked;
    auto status = policy::derive_pool_status(
        observation,
        policy::conditions_from_json(old_status.value("conditions", kube::Json::array())), now);
    status.records = policy::prune_records(std::move(records), now);
    auto written = write_status(pool, policy::to_json(status));
    if (written && *written) {
      for (const auto& e : policy::pool_events(policy::summary_from_status_json(old_status),
                                               policy::summarize(status))) {
        ctx_.events->event(
            reference_to(pool),
            e.type == "Warning" ? runtime::EventType::Warning : runtime::EventType::Normal,
            e.reason, "Delete", e.message);
      }
    }
    ctx_.metrics->set_pool_phase(name, "Deleting");
    return runtime::ReconcileResult::after(std::chrono::seconds(2));
  }

  // Everything is released: let the object go, its record written ahead (A1, AuditAhead).
  policy::AuditRecord audit{policy::AuditOperation::DeletePoolV2,
                            name,
                            std::nullopt,
                            std::nullopt,
                            now,
                            policy::AuditResult::Success,
                            "pool deleted; nodes and plug-ins released"};
  audit_.write(pool.meta, audit);
  auto removed = set_finalizer(*ctx_.client, kube::resources::resourcepools, pool,
                               policy::kPoolFinalizer, false);
  if (!removed) return std::unexpected(removed.error());
  if (*removed == FinalizerWrite::Gone) return runtime::ReconcileResult::done();
  if (*removed == FinalizerWrite::Conflict) return runtime::ReconcileResult{true, {}};
  ctx_.events->event(reference_to(pool), runtime::EventType::Normal, "DeletePoolV2", "Delete",
                     "Pool deleted: every node and plug-in released.");
  ctx_.metrics->count_operation(name, "Delete", "Succeeded");
  ctx_.metrics->forget_pool(name);
  ctx_.node_writes->forget(name);
  runtime::log::info("resourcepool", "pool deleted", {{"pool", name}});
  return runtime::ReconcileResult::done();
}

}  // namespace respool::reconcilers
