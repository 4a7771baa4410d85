// Report: the pool's status (phase, conditions, counts, plug-ins, driver progress, P9 records,
// the node-operation budget), its events (P8), audit records (A1) and metrics, and when to look
// again.
#include "operator/runtime/log.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/driver_daemonset.hpp"
#include "reconcilers/policy/driver_upgrade_record.hpp"
#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/node_operation_ledger.hpp"
#include "reconcilers/policy/pool_events.hpp"
#include "reconcilers/policy/remediation_objects.hpp"
#include "reconcilers/resourcepool/pool_reconciler.hpp"

namespace respool::reconcilers {

Outcome<runtime::ReconcileResult> PoolReconciler::report(const Observation& o, const Decision& d,
                                                         Effects& out) {
  std::vector<policy::PoolNode> reported;
  for (const auto& n : o.nodes)
    reported.push_back(n.pool_node);
  policy::PoolObservation observation;
  observation.generation = o.pool->meta.generation;
  observation.previous_phase = o.previous_phase;
  observation.invalid = d.invalid;
  observation.network_problem = d.network_problem;
  observation.nodes = reported;
  observation.plan = d.plan ? &*d.plan : nullptr;
  observation.scale_in_blocked = out.scale_in_blocked;
  const DriverReport driver = driver_report(o, d, observation);
  // RemediationPaused follows the remediation controller's status.remediation (N14); a pool
  // without remediation has none.
  if (auto r = o.old_status.find("remediation"); r != o.old_status.end() && r->is_object())
    observation.remediation_condition = policy::remediation_condition(*r);
  auto status = policy::derive_pool_status(observation, o.previous_conditions, o.now);
  if (driver.progress) status.driver = policy::driver_status_json(*driver.progress);
  status.plugins = out.plugins;
  const auto ended = track_records(o, d, out, driver, status);
  nlohmann::json status_json = policy::to_json(status);
  if (d.spec) report_node_operations(o, *d.spec, status_json);

  audit_spec_change(*o.pool, o.old_status, d, o.now);
  auto written = write_status(*o.pool, std::move(status_json));
  if (!written) {
    // A stale cache (usually our own last status write not seen yet): the watch event that
    // brings the newer pool enqueues it again. No rate-limited requeue: its per-key backoff
    // grows with every conflict and would pace a creation at hundreds of ms per batch.
    if (written.error().lost_race())
      return runtime::ReconcileResult::after(std::chrono::seconds(1));
    return std::unexpected(written.error());
  }
  unrecorded_.recorded(o.name());
  for (const auto& e : ended)
    ctx_.metrics->count_operation(o.name(), e.operation, e.result);
  if (*written) emit_events(*o.pool, o.old_status, status);
  report_metrics(o, status, driver);

  if (out.failure) return std::unexpected(*out.failure);  // reported on the pool by the controller
  // Look again while something moves; events bring the pool back sooner.
  if (out.busy || (d.plan && !d.plan->settled()) || status.nodes.creating > 0 ||
      status.nodes.deleting > 0) {
    return runtime::ReconcileResult::after(std::chrono::seconds(2));
  }
  return runtime::ReconcileResult::done();
}

PoolReconciler::DriverReport PoolReconciler::driver_report(
    const Observation& o, const Decision& d, policy::PoolObservation& observation) const {
  DriverReport out;
  if (!d.spec || !d.spec->driver) return out;
  // Progress from the nodes' upgrade labels, which the driver-upgrade controller writes.
  for (const auto& n : o.nodes) {
    const policy::Flavor* f = o.catalog->flavor(n.pool_node.flavor);
    if (!f || f->accelerator.type == policy::AcceleratorType::None) continue;
    out.nodes.push_back(policy::read_upgraded_node(
        *n.view, policy::driver_target(*o.catalog, *d.spec, n.pool_node.flavor),
        f->accelerator.type));
  }
  const policy::DriverSpec& ds = *d.spec->driver;
  out.progress = policy::driver_progress(out.nodes, ds.gpu_version, ds.npu_version);
  const int batch = policy::batch_size(ds.max_unavailable, d.spec->desired_nodes());
  const std::string settings =
      std::string(ds.mode == policy::UpgradeMode::Force ? "Force" : "Secure") + ", " +
      std::to_string(batch) + " at a time";
  observation.driver_upgrading = out.progress->upgrading;
  observation.driver_condition = policy::driver_condition(
      *out.progress, policy::driver_block(*d.spec, o.old_status.value("phase", "")), settings);
  return out;
}

std::vector<policy::EndedRecord> PoolReconciler::track_records(const Observation& o,
                                                               const Decision& d,
                                                               const Effects& out,
                                                               const DriverReport& driver,
                                                               policy::PoolStatus& status) {
  // The nodes of claims and releases that no written status has recorded yet are kept until one
  // is (a status write can lose a race with the cache).
  const auto unrecorded = unrecorded_.add(o.name(), out.claimed, out.released);
  std::vector<policy::Record> records = o.records;
  policy::RecordRound round;
  round.created_before = policy::pool_created(o.previous_phase);
  round.planned = d.plan.has_value();
  round.phase = std::string(policy::to_string(status.phase));
  round.total_nodes = status.nodes.total;
  round.invalid = policy::join(d.invalid);
  round.claimed = unrecorded.claimed;
  round.released = unrecorded.released;
  round.moved_now = !out.claimed.empty() || !out.released.empty();
  round.plan_settled = d.plan && d.plan->settled();
  round.creating = status.nodes.creating;
  round.deleting = status.nodes.deleting;
  round.relabelled = out.relabelled;
  if (d.spec) {
    round.job_types = policy::job_types_words(d.spec->job_types);
    round.tags_changed =
        policy::tags_change(o.old_status.value("tags", kube::Json()), d.spec->tags);
    status.tags = d.spec->tags;
  }
  auto ended = policy::track_pool_records(records, round, o.now);
  if (driver.progress) {
    const policy::DriverRecordRound upgrade{driver.nodes, &*driver.progress,
                                            policy::targets_words(*driver.progress),
                                            policy::UpgradeSettings{}.retry_limit};
    if (auto e = policy::track_driver_record(records, upgrade, o.now)) ended.push_back(*e);
  }
  status.records = policy::prune_records(std::move(records), o.now);
  return ended;
}

void PoolReconciler::report_node_operations(const Observation& o,
                                            const policy::ResourcePoolSpec& spec,
                                            nlohmann::json& status) {
  // The node-operation budget's figures follow the pool's size and the catalog; writing them
  // here, with the rest, leaves the NodeOperation controller nothing to write for a pool
  // without operations (two writers of one status lose each other's writes to conflicts, and a
  // lost write can hide a phase: a pool that never said Creating).
  const kube::Json old_ops = o.old_status.value("nodeOperations", kube::Json());
  const policy::Ledger ledger =
      policy::ledger_from_json(old_ops.is_object() ? old_ops : kube::Json::object());
  const policy::Budget budget =
      policy::budget(ledger, spec.desired_nodes(), o.catalog->replacement_limits, o.now);
  status["nodeOperations"] = policy::to_json(budget, ledger);
  // The same figures as metrics, for every pool (the NodeOperation controller updates them as
  // its operations move).
  std::map<std::string, int> in_operation = {{"Replace", 0}, {"Reset", 0}, {"Delete", 0}};
  for (const auto& a : ledger.active)
    ++in_operation[std::string(policy::to_string(a.type))];
  ctx_.metrics->set_nodes_in_operation(o.name(), in_operation);
  ctx_.metrics->set_node_operation_budget(o.name(), budget);
}

void PoolReconciler::report_metrics(const Observation& o, const policy::PoolStatus& status,
                                    const DriverReport& driver) {
  std::map<std::string, std::map<std::string, int>> by_flavor_state;
  for (const auto& n : o.nodes)
    ++by_flavor_state[n.pool_node.flavor][std::string(policy::to_string(n.pool_node.state.state))];
  ctx_.metrics->set_pool_nodes(o.name(), by_flavor_state);
  ctx_.metrics->set_pool_phase(o.name(), std::string(policy::to_string(status.phase)));
  std::optional<std::map<std::string, int>> by_upgrade_state;
  if (driver.progress) {
    by_upgrade_state.emplace();
    for (const auto& u : driver.nodes)
      if (u.node.state != policy::UpgradeState::None)
        ++(*by_upgrade_state)[std::string(policy::to_string(u.node.state))];
  }
  ctx_.metrics->set_driver_upgrade_nodes(o.name(), by_upgrade_state);
}

void PoolReconciler::emit_events(const kube::Unstructured& pool, const nlohmann::json& old_status,
                                 const policy::PoolStatus& status) {
  for (const auto& e : policy::pool_events(policy::summary_from_status_json(old_status),
                                           policy::summarize(status))) {
    ctx_.events->event(
        reference_to(pool),
        e.type == "Warning" ? runtime::EventType::Warning : runtime::EventType::Normal, e.reason,
        "Reconcile", e.message);
  }
}

// A1: a create or update, written ahead of the status whose observedGeneration acknowledges it.
void PoolReconciler::audit_spec_change(const kube::Unstructured& pool,
                                       const nlohmann::json& old_status, const Decision& d,
                                       runtime::TimePoint now) {
  auto op =
      policy::audited_spec_change(policy::AuditedKind::Pool, old_status, pool.meta.generation);
  if (!op) return;
  policy::AuditRecord audit{
      *op,
      pool.meta.name,
      std::nullopt,
      policy::spec_manager(pool.object),  // A1: who changed the spec, as managedFields say
      now,
      d.invalid.empty() ? policy::AuditResult::Success : policy::AuditResult::Failure,
      d.invalid.empty() ? "accepted" : policy::join(d.invalid)};
  if (!audit_.write(pool.meta, audit)) return;
  ctx_.events->event(reference_to(pool), runtime::EventType::Normal,
                     std::string(policy::to_string(*op)), "Audit",
                     std::string(policy::to_string(*op)) + " recorded.");
}

}  // namespace respool::reconcilers
