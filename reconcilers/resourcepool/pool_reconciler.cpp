#include "reconcilers/resourcepool/pool_reconciler.hpp"

#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/pool_events.hpp"
#include "reconcilers/policy/records.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

bool has_finalizer(const kube::Unstructured& o) {
  return std::find(o.meta.finalizers.begin(), o.meta.finalizers.end(), policy::kPoolFinalizer) !=
         o.meta.finalizers.end();
}

kube::Json finalizer_patch(const kube::Unstructured& o, bool present) {
  kube::Json list = kube::Json::array();
  for (const auto& f : o.meta.finalizers) {
    if (f != policy::kPoolFinalizer) list.push_back(f);
  }
  if (present) list.push_back(policy::kPoolFinalizer);
  return {{"metadata", {{"finalizers", list}, {"resourceVersion", o.meta.resource_version}}}};
}

// Why the pool's network cannot be used yet (P3), or nullopt when it is Ready.
std::optional<std::string> network_problem(const Context& ctx, const std::string& network) {
  auto object = ctx.caches.networks->store().get(network);
  if (!object) return "network \"" + network + "\" does not exist (P3)";
  if (object->meta.deletion_timestamp) return "network \"" + network + "\" is being deleted (P3)";
  auto conditions =
      policy::conditions_from_json(object->object.value("status", kube::Json::object())
                                       .value("conditions", kube::Json::array()));
  const auto* ready = policy::find_condition(conditions, "Ready");
  if (!ready) return "network \"" + network + "\" is not ready yet (P3)";
  if (ready->status != "True") {
    return "network \"" + network + "\" is not ready: " + ready->reason + ": " + ready->message +
           " (P3)";
  }
  return std::nullopt;
}

}  // namespace

int PoolReconciler::running_jobs(const std::string& node) const {
  int jobs = 0;
  for (const auto& pod : ctx_.caches.pods->store().by_index(kByNode, node)) {
    if (is_running_job(*pod, ctx_.job_selector)) ++jobs;
  }
  return jobs;
}

std::vector<ObservedNode> PoolReconciler::observe_nodes(const std::string& pool,
                                                        const policy::Catalog& catalog) {
  std::vector<ObservedNode> out;
  for (const auto& node : ctx_.caches.nodes->store().by_index(kByPool, pool)) {
    ObservedNode o;
    o.node = node;
    o.view = ctx_.node_views->view(node);
    o.pool_node = policy::pool_node(*o.view, catalog, running_jobs(node->meta.name));
    out.push_back(std::move(o));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.view->name < b.view->name; });
  return out;
}

std::vector<policy::FreeNode> PoolReconciler::free_nodes(const FreeNodeIndex::CatalogPtr& catalog) {
  return ctx_.free_nodes->list(catalog, [this] { return ctx_.caches.nodes->store().list(); });
}

std::expected<bool, std::string> PoolReconciler::write_status(const kube::Unstructured& pool,
                                                              const nlohmann::json& status) {
  if (pool.object.value("status", kube::Json::object()) == status) return false;
  kube::Json updated = pool.object;
  updated["status"] = status;
  auto r = ctx_.client->update_status(kube::resources::resourcepools, "", updated);
  if (!r) {
    if (r.error().is(kube::Error::Kind::Conflict) || r.error().is(kube::Error::Kind::NotFound)) {
      return std::unexpected(std::string("conflict"));
    }
    return std::unexpected("writing the status: " + r.error().describe());
  }
  return true;
}

std::expected<runtime::ReconcileResult, std::string> PoolReconciler::reconcile(
    const std::string& name) {
  auto object = ctx_.caches.pools->store().get(name);
  if (!object) {
    ctx_.metrics->forget_pool(name);
    expectations_.forget(name);
    unrecorded_.forget(name);
    return runtime::ReconcileResult::done();
  }
  const kube::Unstructured& pool = *object;
  const auto now = ctx_.clock->now();
  auto catalog = ctx_.catalog->get();
  // Claims and releases wait until the cache shows the previous ones. Asked before the nodes
  // are observed: the cache only moves forward, so what is observed next includes them, while
  // asking afterwards could plan from a view older than the expectations it just dropped.
  const bool waiting =
      expectations_.pending(name, now, [&](const std::string& node, Expectations::Kind kind) {
        auto cached = ctx_.caches.nodes->store().get(node);
        auto label = cached ? cached->meta.labels.get(policy::kPoolLabel) : std::nullopt;
        return kind == Expectations::Kind::InPool ? (label && *label == name) : !label;
      });
  auto nodes = observe_nodes(name, *catalog);

  if (pool.meta.deletion_timestamp) return reconcile_deletion(pool, nodes);

  if (!has_finalizer(pool)) {
    auto r = ctx_.client->patch(kube::resources::resourcepools, "", name, kube::PatchType::Merge,
                                finalizer_patch(pool, true));
    if (!r && !r.error().is(kube::Error::Kind::Conflict) &&
        !r.error().is(kube::Error::Kind::NotFound)) {
      return std::unexpected("adding the finalizer: " + r.error().describe());
    }
    return runtime::ReconcileResult::done();  // the update event brings the pool back
  }

  const kube::Json old_status = pool.object.value("status", kube::Json::object());
  const auto previous_phase = policy::parse_pool_phase(old_status.value("phase", ""));
  auto previous_conditions =
      policy::conditions_from_json(old_status.value("conditions", kube::Json::array()));
  auto records = policy::records_from_json(old_status.value("records", kube::Json::array()));

  // Decide: the spec (P1–P5, P11, P13), the resize rules (P10), the network (P3).
  std::vector<policy::Violation> invalid;
  std::optional<policy::ResourcePoolSpec> spec;
  if (auto checked = policy::check_pool(pool.object, *catalog)) {
    spec = std::move(*checked);
  } else {
    invalid = checked.error();
  }
  std::optional<std::string> network;
  if (spec) network = network_problem(ctx_, spec->network);
  if (spec && policy::pool_created(previous_phase)) {
    auto flavors = policy::status_flavors(old_status);
    auto resize = policy::resize_violations(*spec, flavors);
    invalid.insert(invalid.end(), resize.begin(), resize.end());
  }

  Outcome outcome;
  // A failed write does not stop the others, nor the status: it is reported, then retried
  // with backoff.
  std::optional<std::string> failure;
  auto note = [&failure](std::expected<void, std::string> r) {
    if (!r && !failure) failure = r.error();
  };
  std::optional<policy::PoolPlan> plan;
  std::vector<policy::PluginStatus> plugins;
  if (invalid.empty() && !network) {
    recover_claims(name, nodes, records,
                   policy::pool_created(previous_phase) ? policy::Operation::Resize
                                                        : policy::Operation::Create,
                   outcome);
    // Nodes whose admission ended leave the P6 window before the next claims are planned.
    note(admit(name, nodes, *catalog, outcome));
    auto free = free_nodes(catalog);
    std::vector<policy::PoolNode> pool_nodes;
    for (const auto& n : nodes)
      pool_nodes.push_back(n.pool_node);
    policy::PlanOptions options;
    options.resize_allowed = policy::resize_allowed(previous_phase);
    auto desired = policy::desired_groups(*spec);
    plan = policy::plan_pool(desired, pool_nodes, free, options);

    if (waiting) {
      outcome.busy = true;
    } else {
      note(claim(name, *spec, *plan, outcome));
      if (!plan->releases.empty()) note(release(name, plan->releases, nodes, outcome));
    }
    // Job-type labels follow the spec on a Running pool (P12), and from the start on a new one.
    if (!policy::pool_created(previous_phase) || previous_phase == policy::PoolPhase::Running) {
      note(set_job_types(*spec, nodes));
    }
    auto installed = sync_plugins(pool, spec->job_types, static_cast<int>(nodes.size()));
    if (installed)
      plugins = std::move(*installed);
    else
      note(std::unexpected(installed.error()));
  }

  // Report.
  std::vector<policy::PoolNode> reported;
  for (const auto& n : nodes)
    reported.push_back(n.pool_node);
  policy::PoolObservation observation;
  observation.generation = pool.meta.generation;
  observation.previous_phase = previous_phase;
  observation.invalid = invalid;
  observation.network_problem = network;
  observation.nodes = reported;
  observation.plan = plan ? &*plan : nullptr;
  observation.scale_in_blocked = outcome.scale_in_blocked;
  auto status = policy::derive_pool_status(observation, previous_conditions, now);
  status.plugins = plugins;

  // P9 records.
  // Operations ended by this status; counted once it is written.
  std::vector<std::pair<std::string, std::string>> ended;
  const auto unrecorded = unrecorded_.add(name, outcome.claimed, outcome.released);
  const bool created_before = policy::pool_created(previous_phase);
  if (!created_before) {
    policy::begin_record(records, policy::Operation::Create, now, "creating the pool");
    policy::note_nodes(records, policy::Operation::Create, unrecorded.claimed);
    if (status.phase == policy::PoolPhase::Running || status.phase == policy::PoolPhase::Abnormal) {
      policy::end_record(records, policy::Operation::Create, policy::RecordPhase::Succeeded, now,
                         "pool created with " + std::to_string(status.nodes.total) + " nodes");
      ended.emplace_back("Create", "Succeeded");
    } else if (status.phase == policy::PoolPhase::Failed) {
      policy::end_record(records, policy::Operation::Create, policy::RecordPhase::Failed, now,
                         policy::join(invalid));
      ended.emplace_back("Create", "Failed");
    }
  } else if (plan) {
    const bool resizing = !unrecorded.claimed.empty() || !unrecorded.released.empty() ||
                          policy::running_record(records, policy::Operation::Resize);
    if (resizing) {
      policy::begin_record(records, policy::Operation::Resize, now, "resizing the pool");
      policy::note_nodes(records, policy::Operation::Resize, unrecorded.claimed);
      policy::note_nodes(records, policy::Operation::Resize, unrecorded.released);
      if (plan->settled() && outcome.claimed.empty() && outcome.released.empty() &&
          status.nodes.creating == 0 && status.nodes.deleting == 0) {
        policy::end_record(records, policy::Operation::Resize, policy::RecordPhase::Succeeded, now,
                           "pool resized to " + std::to_string(status.nodes.total) + " nodes");
        ended.emplace_back("Resize", "Succeeded");
      }
    }
  }
  status.records = policy::prune_records(std::move(records), now);

  kube::Json next = policy::to_json(status);
  auto written = write_status(pool, next);
  if (!written) {
    // A stale cache (usually our own last status write not seen yet): the watch event that
    // brings the newer pool enqueues it again. No rate-limited requeue: its per-key backoff
    // grows with every conflict and would pace a creation at hundreds of ms per batch.
    if (written.error() == "conflict")
      return runtime::ReconcileResult::after(std::chrono::seconds(1));
    return std::unexpected(written.error());
  }
  unrecorded_.recorded(name);
  for (const auto& [operation, result] : ended)
    ctx_.metrics->count_operation(name, operation, result);
  if (*written) {
    for (const auto& e : policy::pool_events(policy::summary_from_status_json(old_status),
                                             policy::summarize(status))) {
      ctx_.events->event(
          reference_to(pool),
          e.type == "Warning" ? runtime::EventType::Warning : runtime::EventType::Normal, e.reason,
          "Reconcile", e.message);
    }
    std::optional<std::int64_t> observed;
    if (old_status.contains("observedGeneration"))
      observed = old_status["observedGeneration"].get<std::int64_t>();
    if (auto op = policy::audited_change(policy::AuditedKind::Pool, observed, pool.meta.generation,
                                         false, false)) {
      policy::AuditRecord audit{
          *op,
          name,
          std::nullopt,
          std::nullopt,
          now,
          invalid.empty() ? policy::AuditResult::Success : policy::AuditResult::Failure,
          invalid.empty() ? "accepted" : policy::join(invalid)};
      write_audit(policy::audit_line(audit));
      ctx_.events->event(reference_to(pool), runtime::EventType::Normal,
                         std::string(policy::to_string(*op)), "Audit",
                         std::string(policy::to_string(*op)) + " recorded.");
    }
  }

  // Metrics.
  std::map<std::string, std::map<std::string, int>> by_flavor_state;
  for (const auto& n : nodes) {
    by_flavor_state[n.pool_node.flavor][std::string(policy::to_string(n.pool_node.state.state))] +=
        1;
  }
  ctx_.metrics->set_pool_nodes(name, by_flavor_state);
  ctx_.metrics->set_pool_phase(name, std::string(policy::to_string(status.phase)));

  if (failure) return std::unexpected(*failure);  // reported on the pool by the controller
  // Look again while something moves; events bring the pool back sooner.
  if (outcome.busy || (plan && !plan->settled()) || status.nodes.creating > 0 ||
      status.nodes.deleting > 0) {
    return runtime::ReconcileResult::after(std::chrono::seconds(2));
  }
  return runtime::ReconcileResult::done();
}

}  // namespace respool::reconcilers
