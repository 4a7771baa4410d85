#include "reconcilers/remediation/remediation_reconciler.hpp"

#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/remediation_objects.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::reconcilers {

namespace {

using nlohmann::json;

// Every series a pool's remediation can have: they exist at 0 from the pool's first reconcile,
// so that its dashboard panels and alerts read 0, not "no data", until something happens.
constexpr const char* kActions[] = {"Replace", "Reset"};
constexpr const char* kResults[] = {"Created", "Succeeded", "Failed", "Rejected", "Previewed"};

std::string operation_key(const std::string& name) {
  return "nodeoperations/" + name;
}

}  // namespace

RemediationReconciler::RemediationReconciler(Context& ctx, runtime::Registry& metrics)
    : ctx_(ctx),
      remediations_(metrics.counter(
          "respool_remediations_total",
          "Automatic NodeOperations respool's remediation created (result Created) and how they "
          "ended (Succeeded, Failed, Rejected; Previewed: a dry run's preview, N16), by pool and "
          "action (N12)",
          {"pool", "action", "result"})),
      paused_(metrics.gauge("respool_remediation_paused",
                            "1 while a pool's automatic remediation is paused because more of its "
                            "nodes are abnormal than maxUnhealthy allows (N14)",
                            {"pool"})) {}

void RemediationReconciler::forget(const std::string& pool) {
  written_.forget(pool);
  {
    std::lock_guard lock(mu_);
    running_.erase(pool);
  }
  paused_.remove({pool});
  for (const char* action : kActions)
    for (const char* result : kResults)
      remediations_.remove({pool, action, result});
}

RemediationReconciler::Observation RemediationReconciler::observe(
    const kube::Unstructured& pool, const policy::RemediationSpec& spec) {
  Observation o;
  const json status = pool.object.value("status", json::object());
  o.old_status = status.value("remediation", json());
  o.input.spec = &spec;
  o.input.now = ctx_.clock->now();
  o.input.driver_upgrading = policy::pool_driver_upgrading(status);
  if (o.old_status.is_object())
    o.input.memory =
        policy::node_remediations_from_json(o.old_status.value("nodes", json::array()));
  auto catalog = ctx_.catalog->get();
  for (const auto& node : ctx_.caches.nodes->store().by_index(kByPool, pool.meta.name)) {
    auto view = ctx_.node_views->view(node);
    o.input.nodes.push_back(policy::remediation_node(*view, policy::pool_node(*view, *catalog, 0)));
  }
  for (const auto& op : ctx_.caches.operations->store().by_index(kByPool, pool.meta.name))
    o.operations.emplace_back(op->meta.name, policy::operation_on_nodes(op->object));
  policy::attach_operations(o.input.nodes, o.operations);
  return o;
}

Outcome<runtime::ReconcileResult> RemediationReconciler::reconcile(const std::string& name) {
  auto pool = ctx_.caches.pools->store().get(name);
  if (!pool || pool->meta.deletion_timestamp) {
    forget(name);
    return runtime::ReconcileResult::done();
  }
  for (const char* action : kActions)
    for (const char* result : kResults)
      remediations_.with({name, action, result});
  // Every pool event comes here: a pool without remediation, and nothing of it to clear, returns
  // without taking the pool's lock from the controllers that act on it.
  const json spec_json = pool->object.value("spec", json::object());
  if (!spec_json.contains("remediation") &&
      !pool->object.value("status", json::object()).contains("remediation")) {
    paused_.with({name})->set(0);
    return runtime::ReconcileResult::done();
  }
  auto held = ctx_.pool_locks->lock(name);
  const runtime::TimePoint now = ctx_.clock->now();
  // Decided from a cache that shows neither this controller's last status nor the operations
  // it created, a round would start a step again: it waits for them (at most 30 s).
  const bool behind = written_.behind(name, now, [&](const std::string& key) {
    if (key.starts_with("nodeoperations/")) {
      auto op = ctx_.caches.operations->store().get(key.substr(15));
      // Not there yet is "not seen", unlike a gone object: "" never reaches a version.
      return std::optional<std::string>(op ? op->meta.resource_version : "");
    }
    return std::optional<std::string>(pool->meta.resource_version);
  });
  if (behind) return runtime::ReconcileResult::after(std::chrono::seconds(1));

  const json old_status = pool->object.value("status", json::object()).value("remediation", json());
  auto spec = policy::check_remediation(pool->object.value("spec", json::object()));
  if (!spec) {
    // The CRD refuses these at apply; a server that does not evaluate CEL lets them through.
    json wanted = policy::remediation_status_invalid(spec.error());
    if (wanted == old_status) return runtime::ReconcileResult::done();
    if (auto w = write_status(*pool, wanted); !w) {
      if (w.error().lost_race()) return runtime::ReconcileResult{true, {}};
      return std::unexpected(w.error());
    }
    ctx_.events->event(reference_to(*pool), runtime::EventType::Warning, "InvalidRemediation",
                       "Remediate", wanted["message"].get<std::string>());
    paused_.with({name})->set(0);
    return runtime::ReconcileResult::done();
  }
  if (!*spec) {  // N10: off; running automatic operations finish on their own
    paused_.with({name})->set(0);
    if (old_status.is_null()) return runtime::ReconcileResult::done();
    if (auto w = write_status(*pool, nullptr); !w && !w.error().lost_race())
      return std::unexpected(w.error());
    return runtime::ReconcileResult::done();
  }

  Observation o = observe(*pool, **spec);
  count_endings(name, o);
  policy::RemediationPlan plan = policy::plan_remediation(o.input);
  // The operations first, then the memory that names them: a create that fails leaves the
  // memory as it was (the next round tries the same name), and a crash between the two finds
  // the operation under the name the next round computes again.
  for (const policy::RemediationAction& action : plan.create) {
    if (auto c = create(*pool, action); !c) return std::unexpected(c.error());
  }
  json wanted = policy::remediation_status(plan, o.input);
  if (wanted != old_status) {
    if (auto w = write_status(*pool, wanted); !w) {
      if (w.error().lost_race()) return runtime::ReconcileResult{true, {}};
      return std::unexpected(w.error());
    }
  }
  report(*pool, old_status, plan);
  paused_.with({name})->set(plan.paused ? 1 : 0);
  if (!plan.next_check) return runtime::ReconcileResult::done();
  const auto wait = std::max<runtime::Duration>(*plan.next_check - now, std::chrono::seconds(1));
  return runtime::ReconcileResult::after(wait);
}

Outcome<void> RemediationReconciler::write_status(const kube::Unstructured& pool,
                                                  const json& wanted) {
  json patch = {{"metadata", {{"resourceVersion", pool.meta.resource_version}}},
                {"status", {{"remediation", wanted}}}};
  kube::WriteOptions options;
  options.subresource = "status";
  auto r = ctx_.client->patch(kube::resources::resourcepools, "", pool.meta.name,
                              kube::PatchType::Merge, patch, options);
  if (!r) return failed("writing status.remediation of pool " + pool.meta.name, r.error());
  written_.wrote_answer(pool.meta.name, "resourcepools/" + pool.meta.name, *r, ctx_.clock->now());
  return {};
}

Outcome<void> RemediationReconciler::create(const kube::Unstructured& pool,
                                            const policy::RemediationAction& action) {
  const json object = policy::remediation_operation(action, pool.meta.name, pool.meta.uid.str());
  const std::string name = object["metadata"]["name"];
  // Made by an earlier round whose memory write lost a race: the cache shows it, no request.
  if (ctx_.caches.operations->store().get(name)) return {};
  auto r = ctx_.client->create(kube::resources::nodeoperations, "", object);
  if (!r && !r.error().is(kube::Error::Kind::AlreadyExists))
    return failed("creating NodeOperation " + name, r.error());
  if (!r) return {};  // made by an earlier round that did not see its answer
  written_.wrote_answer(pool.meta.name, operation_key(name), *r, ctx_.clock->now());
  // A dry run's preview is counted once it is Previewed (count_endings), never as Created.
  if (!action.preview)
    remediations_
        .with({pool.meta.name, std::string(policy::to_string(action.what.action)), "Created"})
        ->inc();
  {
    std::lock_guard lock(mu_);
    running_[pool.meta.name].insert(name);
  }
  ctx_.events->event(reference_to(pool), runtime::EventType::Normal,
                     action.preview ? "RemediationPreviewed" : "RemediationStarted", "Remediate",
                     std::string(action.preview ? "dry run (N16): " : "") + action.node +
                         ": fault " + action.code + ", step " + std::to_string(action.step + 1) +
                         " (" + std::string(policy::to_string(action.what.action)) + "), attempt " +
                         std::to_string(action.attempt) + ": NodeOperation " + name);
  runtime::log::info("remediation", "operation created",
                     {{"pool", pool.meta.name}, {"node", action.node}, {"operation", name}});
  return {};
}

void RemediationReconciler::count_endings(const std::string& pool, const Observation& o) {
  std::lock_guard lock(mu_);
  std::set<std::string>& running = running_[pool];
  std::set<std::string> still;
  for (const auto& [name, op] : o.operations) {
    if (!op.automatic) continue;
    const policy::AutomaticOperation& a = *op.automatic;
    if (!a.ended()) {
      still.insert(name);
      continue;
    }
    // Only endings this process saw happen: one that ended while no operator ran is not counted
    // (a restarted operator would otherwise count every retained operation again).
    if (!running.contains(name)) continue;
    remediations_.with({pool, std::string(policy::to_string(op.type)), a.phase})->inc();
  }
  // Ones not in the cache: created by this round and not shown yet (or deleted, and then
  // forgotten with the pool).
  for (const std::string& name : running) {
    const bool cached = std::any_of(o.operations.begin(), o.operations.end(),
                                    [&](const auto& op) { return op.first == name; });
    if (!cached) still.insert(name);
  }
  running = std::move(still);
}

void RemediationReconciler::report(const kube::Unstructured& pool, const json& old_status,
                                   const policy::RemediationPlan& plan) {
  const bool was_paused = old_status.is_object() && old_status.value("paused", false);
  const auto ref = reference_to(pool);
  if (plan.paused && !was_paused)
    ctx_.events->event(ref, runtime::EventType::Warning, "RemediationPaused", "Remediate",
                       plan.paused_message + ": no automatic operation starts (N14)");
  if (!plan.paused && was_paused)
    ctx_.events->event(ref, runtime::EventType::Normal, "RemediationResumed", "Remediate",
                       "abnormal nodes back within maxUnhealthy");
  const auto old_memory = policy::node_remediations_from_json(
      old_status.is_object() ? old_status.value("nodes", json::array()) : json::array());
  for (const policy::NodeRemediation& r : plan.memory) {
    if (!r.exhausted) continue;
    bool known = false;
    for (const auto& m : old_memory)
      known = known || (m.node == r.node && m.code == r.code && m.exhausted);
    if (!known)
      ctx_.events->event(ref, runtime::EventType::Warning, "RemediationExhausted", "Remediate",
                         r.node + ": fault " + r.code +
                             " remains after every step of its rule: left to an administrator");
  }
}

}  // namespace respool::reconcilers
