#include "reconcilers/resourcepool/pool_reconciler.hpp"

#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/finalizer.hpp"
#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/node_operation_status.hpp"
#include "reconcilers/policy/pool_events.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

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

void PoolReconciler::pending_deletes(Observation& o) const {
  if (!ctx_.caches.operations) return;
  for (const auto& op : ctx_.caches.operations->store().by_index(kByPool, o.pool->meta.name)) {
    const kube::Json spec = op->object.value("spec", kube::Json::object());
    const kube::Json status = op->object.value("status", kube::Json::object());
    auto phase = policy::parse_operation_phase(status.value("phase", "Pending"));
    if (spec.value("type", "") != "Delete" || (phase && policy::is_terminal(*phase))) continue;
    const bool unanswered = !status.contains("phase");
    for (const auto& n : spec.value("nodes", kube::Json::array())) {
      if (!n.is_string()) continue;
      o.delete_first.push_back(n.get<std::string>());
      if (unanswered) o.delete_unanswered.push_back(n.get<std::string>());
    }
  }
}

std::vector<policy::FreeNode> PoolReconciler::free_nodes(const FreeNodeIndex::CatalogPtr& catalog) {
  return ctx_.free_nodes->list(catalog, [this] { return ctx_.caches.nodes->store().list(); });
}

Outcome<bool> PoolReconciler::write_status(const kube::Unstructured& pool, nlohmann::json status) {
  const kube::Json old_status = pool.object.value("status", kube::Json::object());
  // status.nodeOperations holds the NodeOperation controller's ledger: kept unless the caller
  // brought it, with fresh figures.
  if (auto ops = old_status.find("nodeOperations");
      ops != old_status.end() && !status.contains("nodeOperations"))
    status["nodeOperations"] = *ops;
  // status.remediation is the remediation controller's memory (N10-N16): always kept.
  if (auto memory = old_status.find("remediation"); memory != old_status.end())
    status["remediation"] = *memory;
  // status.jobs is the jobs controller's summary of the pool's queue (Q3): always kept.
  if (auto jobs = old_status.find("jobs"); jobs != old_status.end()) status["jobs"] = *jobs;
  if (old_status == status) return false;
  kube::Json updated = pool.object;
  updated["status"] = std::move(status);
  auto r = ctx_.client->update_status(kube::resources::resourcepools, "", updated);
  if (!r) return failed("writing the status of ResourcePool " + pool.meta.name, r.error());
  return true;
}

void PoolReconciler::forget(const std::string& name) {
  ctx_.metrics->forget_pool(name);
  ctx_.node_writes->forget(name);
  unrecorded_.forget(name);
  audit_.forget(name);
}

Outcome<runtime::ReconcileResult> PoolReconciler::reconcile(const std::string& name) {
  auto held = ctx_.pool_locks->lock(name);
  auto observed = observe(name);
  if (!observed) {
    forget(name);
    return runtime::ReconcileResult::done();
  }
  const kube::Unstructured& pool = *observed->pool;
  if (pool.meta.deletion_timestamp) return reconcile_deletion(pool, observed->nodes);
  auto finalizer = set_finalizer(*ctx_.client, kube::resources::resourcepools, pool,
                                 policy::kPoolFinalizer, true);
  if (!finalizer) return std::unexpected(finalizer.error());
  if (*finalizer != FinalizerWrite::Unchanged) return runtime::ReconcileResult::done();
  Decision decision = decide(*observed);
  Effects outcome;
  if (decision.valid()) {
    settle_admissions(*observed, *decision.spec, outcome);
    decision.plan = plan(*observed, decision);
    act(*observed, decision, outcome);
  }
  return report(*observed, decision, outcome);
}

std::optional<PoolReconciler::Observation> PoolReconciler::observe(const std::string& name) {
  Observation o;
  o.pool = ctx_.caches.pools->store().get(name);
  if (!o.pool) return std::nullopt;
  o.now = ctx_.clock->now();
  o.catalog = ctx_.catalog->get();
  // Claims and releases wait until the cache shows the previous ones. Asked before the nodes
  // are observed: the cache only moves forward, so what is observed next includes them, while
  // asking afterwards could plan from a view older than the writes it just dropped.
  o.waiting = node_writes_behind(ctx_, name, o.now);
  o.nodes = observe_nodes(name, *o.catalog);
  o.old_status = o.pool->object.value("status", kube::Json::object());
  o.previous_phase = policy::parse_pool_phase(o.old_status.value("phase", ""));
  o.previous_conditions =
      policy::conditions_from_json(o.old_status.value("conditions", kube::Json::array()));
  o.records = policy::records_from_json(o.old_status.value("records", kube::Json::array()));
  pending_deletes(o);
  return o;
}

PoolReconciler::Decision PoolReconciler::decide(const Observation& o) const {
  Decision d;
  // The spec (P1–P5, P11, P13), the resize rules (P10), the network (P3).
  if (auto checked = policy::check_pool(o.pool->object, *o.catalog)) {
    d.spec = std::move(*checked);
  } else {
    d.invalid = checked.error();
  }
  if (d.spec) d.network_problem = network_problem(ctx_, d.spec->network);
  if (d.spec && policy::pool_created(o.previous_phase)) {
    auto resize = policy::resize_violations(*d.spec, policy::status_flavors(o.old_status));
    d.invalid.insert(d.invalid.end(), resize.begin(), resize.end());
  }
  return d;
}

void PoolReconciler::settle_admissions(Observation& o, const policy::ResourcePoolSpec& spec,
                                       Effects& out) {
  recover_claims(o.name(), o.nodes, o.records,
                 policy::pool_created(o.previous_phase) ? policy::Operation::Resize
                                                        : policy::Operation::Create,
                 out);
  out.note(admit(o.name(), o.nodes, *o.catalog, spec, out));
}

policy::PoolPlan PoolReconciler::plan(const Observation& o, const Decision& d) {
  std::vector<policy::PoolNode> pool_nodes;
  for (const auto& n : o.nodes)
    pool_nodes.push_back(n.pool_node);
  policy::PlanOptions options;
  options.resize_allowed = policy::resize_allowed(o.previous_phase);
  options.delete_first = o.delete_first;
  options.delete_unanswered = o.delete_unanswered;
  return policy::plan_pool(policy::desired_groups(*d.spec), pool_nodes, free_nodes(o.catalog),
                           options);
}

void PoolReconciler::act(Observation& o, const Decision& d, Effects& out) {
  const std::string& name = o.name();
  const policy::PoolPlan& plan = *d.plan;
  if (o.waiting) {
    out.busy = true;
  } else {
    out.note(claim(name, *d.spec, plan, out));
    if (!plan.keeps.empty()) out.note(keep(plan.keeps, o.nodes, out));
    if (!plan.releases.empty()) out.note(release(name, plan.releases, o.nodes, out));
  }
  // Job-type labels follow the spec on a Running pool (P12), and from the start on a new one.
  if (!policy::pool_created(o.previous_phase) || o.previous_phase == policy::PoolPhase::Running)
    out.note(set_job_types(*d.spec, o.nodes, out));
  auto installed = sync_plugins(*o.pool, d.spec->job_types, static_cast<int>(o.nodes.size()));
  if (installed)
    out.plugins = std::move(*installed);
  else
    out.note(std::unexpected(installed.error()));
}

}  // namespace respool::reconcilers
