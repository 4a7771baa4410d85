#include "reconcilers/nodeoperation/operation_reconciler.hpp"

#include <algorithm>
#include <cstdio>

#include "operator/runtime/log.hpp"
#include "reconcilers/finalizer.hpp"
#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_operation_ledger.hpp"
#include "reconcilers/policy/pool_status.hpp"
#include "reconcilers/stable_hash.hpp"

namespace respool::reconcilers {

namespace {

using kube::Json;

}  // namespace

std::string OperationReconciler::reset_job_name(const std::string& operation,
                                                const std::string& node) {
  // Stable across restarts and versions, so a restarted operator finds its Job.
  return "respool-reset-" + stable_hash(operation + "/" + node);
}

OperationReconciler::Operation* OperationReconciler::Observation::operation(
    const std::string& name) {
  for (Operation& op : operations) {
    if (op.name() == name) return &op;
  }
  return nullptr;
}

void OperationReconciler::remember_audit(const std::string& key, bool remember) {
  std::lock_guard lock(audited_mu_);
  if (remember)
    audited_.insert(key);
  else
    audited_.erase(key);
}

bool OperationReconciler::audit_remembered(const std::string& key) {
  std::lock_guard lock(audited_mu_);
  return audited_.contains(key);
}

OperationReconciler::Observation OperationReconciler::observe(const std::string& pool) {
  Observation o;
  o.pool = pool;
  o.now = ctx_.clock->now();
  o.catalog = ctx_.catalog->get();
  o.pool_object = ctx_.caches.pools->store().get(pool);
  if (o.pool_object) {
    const Json status = o.pool_object->object.value("status", Json::object());
    o.ledger = policy::ledger_from_json(status.value("nodeOperations", Json::object()));
    o.driver_upgrading = policy::pool_driver_upgrading(status);
    if (auto spec = policy::check_pool(o.pool_object->object, *o.catalog)) o.pool_spec = *spec;
  }
  for (const auto& node : ctx_.caches.nodes->store().by_index(kByPool, pool)) {
    o.pool_nodes.push_back(policy::pool_node(*ctx_.node_views->view(node), *o.catalog, 0));
  }
  o.pool_size = o.pool_spec ? o.pool_spec->desired_nodes() : int(o.pool_nodes.size());
  for (const auto& object : ctx_.caches.operations->store().by_index(kByPool, pool)) {
    Operation op;
    op.object = object;
    if (auto spec = policy::check_node_operation(object->object)) {
      op.spec = std::move(*spec);
    } else {
      op.invalid = spec.error();
    }
    op.old_status = policy::operation_status_from_json(object->object.value("status", Json()));
    // Steps the cache shows recorded need no recovery audit any more.
    for (const auto& n : op.old_status.nodes) {
      for (const auto& step : n.steps)
        remember_audit(object->meta.name + "/" + n.name + "/" + step.step, false);
    }
    op.status = op.old_status;
    op.status.observed_generation = object->meta.generation;
    op.deleting = object->meta.deletion_timestamp.has_value();
    if (op.spec && !op.spec->preview) {  // every node of the spec has its entry, in spec order
      std::vector<policy::NodeProgress> nodes;
      for (const std::string& n : op.spec->nodes) {
        const policy::NodeProgress* old = op.status.node(n);
        nodes.push_back(old ? *old : policy::NodeProgress{n});
      }
      op.status.nodes = std::move(nodes);
    }
    o.operations.push_back(std::move(op));
  }
  std::sort(o.operations.begin(), o.operations.end(), [](const Operation& a, const Operation& b) {
    return std::tie(a.object->meta.creation_timestamp, a.object->meta.name) <
           std::tie(b.object->meta.creation_timestamp, b.object->meta.name);
  });
  return o;
}

Outcome<runtime::ReconcileResult> OperationReconciler::reconcile(const std::string& pool) {
  auto held = ctx_.pool_locks->lock(pool);
  const bool behind = written_.behind(pool, ctx_.clock->now(), [&](const std::string& key) {
    std::shared_ptr<const kube::Unstructured> cached =
        key.starts_with("resourcepools/") ? ctx_.caches.pools->store().get(key.substr(14))
                                          : ctx_.caches.operations->store().get(key.substr(15));
    return cached ? std::optional<std::string>(cached->meta.resource_version) : std::nullopt;
  });
  if (behind) return runtime::ReconcileResult::after(std::chrono::milliseconds(200));
  Observation o = observe(pool);
  Round round;

  auto finalized = keep_finalizers(o);
  if (!finalized) return std::unexpected(finalized.error());
  if (*finalized) return runtime::ReconcileResult::done();  // the updates bring the pool back

  // Decide: end what is orphaned, drop what is over, admit what may start.
  abort_orphans(o);
  settle_ledger(o);
  std::vector<policy::OpenOperation> open;
  for (const Operation& op : o.operations) {
    if (op.deleting || policy::is_terminal(op.status.phase)) continue;
    if (op.spec && op.spec->preview) continue;  // N18: never admitted
    policy::OpenOperation x;
    x.name = op.name();
    x.created = op.object->meta.creation_timestamp;
    x.spec = op.spec;
    x.invalid = op.invalid;
    for (const auto& n : op.status.nodes) {
      if (policy::is_terminal(n.phase)) x.ended.insert(n.name);
      if (n.phase != policy::NodePhase::Pending) x.started = true;
    }
    open.push_back(std::move(x));
  }
  policy::AdmissionInput in;
  in.pool_exists = o.pool_object && !o.pool_object->meta.deletion_timestamp;
  in.pool = pool;
  in.pool_size = o.pool_size;
  in.nodes = o.pool_nodes;
  in.driver_upgrading = o.driver_upgrading;
  in.limits = o.catalog->replacement_limits;
  in.now = o.now;
  preview(o, in, open, round);
  policy::Admission admission = policy::admit(in, o.ledger, std::move(open));
  // An operation waiting for the N1 window looks again when a slot frees.
  const policy::Budget budget =
      policy::budget(admission.ledger, o.pool_size, o.catalog->replacement_limits, o.now);
  if (budget.next_replacement_time) round.at(*budget.next_replacement_time);

  // Act: the ledger first, guarded, so that no decision from a stale view touches a node.
  if (o.pool_object) {
    auto written = write_ledger(o, admission.ledger);
    if (!written) {
      if (written.error().lost_race())
        return runtime::ReconcileResult::after(std::chrono::seconds(1));
      return std::unexpected(written.error());
    }
    o.ledger = admission.ledger;
  }
  apply_admission(o, admission);
  for (const policy::ActiveNode& active : std::vector<policy::ActiveNode>(o.ledger.active)) {
    Operation* op = o.operation(active.operation);
    if (op) advance(o, *op, active, round);
  }

  // Report, then restore what ended (its ending is written first).
  report(o, round);
  for (const policy::ActiveNode& active : o.ledger.active) {
    if (auto ended = ending(o, active)) round.note(restore_node(o, active, *ended));
  }
  if (auto expiry = retain(o)) round.at(*expiry);

  if (round.failure) return std::unexpected(*round.failure);
  if (round.busy || !o.ledger.active.empty()) round.at(o.now + std::chrono::seconds(5));
  if (round.wake) {
    auto wait = std::max<runtime::Duration>(*round.wake - o.now, std::chrono::milliseconds(100));
    return runtime::ReconcileResult::after(wait);
  }
  return runtime::ReconcileResult::done();
}

Outcome<bool> OperationReconciler::keep_finalizers(Observation& o) {
  bool wrote = false;
  for (const Operation& op : o.operations) {
    // A deleted operation lets go once none of its nodes is in the ledger any more.
    // A preview touches nothing, so it has nothing to undo and no finalizer (N18).
    const bool preview = op.spec && op.spec->preview;
    const bool want = !preview && (!op.deleting || o.ledger.active_of(op.name()) > 0);
    auto r = set_finalizer(*ctx_.client, kube::resources::nodeoperations, *op.object,
                           policy::kNodeOperationFinalizer, want);
    if (!r) return std::unexpected(r.error());
    // A deleted operation that let go is gone; a new one comes back with its finalizer.
    if (*r != FinalizerWrite::Unchanged) wrote = wrote || want;
  }
  return wrote;
}

void OperationReconciler::abort_orphans(Observation& o) {
  for (const policy::ActiveNode& a : o.ledger.active) {
    Operation* op = o.operation(a.operation);
    if (!op || !op->deleting) continue;
    policy::NodeProgress* p = op->status.node(a.node);
    if (p && !policy::is_terminal(p->phase)) {
      p->phase = policy::NodePhase::Failed;
      p->reason = "Aborted";
      p->message = "the NodeOperation was deleted; what it did to the node is undone";
      p->add_step("Failed", o.now, p->message);
    }
  }
}

std::optional<policy::NodePhase> OperationReconciler::ending(Observation& o,
                                                             const policy::ActiveNode& active) {
  Operation* op = o.operation(active.operation);
  if (!op || !op->spec) return policy::NodePhase::Failed;
  const policy::NodeProgress* p = op->status.node(active.node);
  if (!p) return policy::NodePhase::Failed;
  if (policy::is_terminal(p->phase)) return p->phase;
  return std::nullopt;
}

void OperationReconciler::settle_ledger(Observation& o) {
  std::erase_if(o.ledger.active, [&](const policy::ActiveNode& a) {
    // Only parts whose ending a status already holds: the old status, as the cache has it.
    Operation* op = o.operation(a.operation);
    const policy::NodeProgress* p = op ? op->old_status.node(a.node) : nullptr;
    std::optional<policy::NodePhase> ended;
    if (!op || !op->spec)
      ended = policy::NodePhase::Failed;
    else if (p && policy::is_terminal(p->phase))
      ended = p->phase;
    if (!ended) return false;
    const policy::OperatedNode f = facts(o, a.operation, a.node);
    const bool job =
        ctx_.caches.reset_jobs->store().get(ctx_.operator_namespace + "/" +
                                            reset_job_name(a.operation, a.node)) != nullptr;
    return !policy::restore(a.type, *ended, f).needed() && !job;
  });
}

Outcome<bool> OperationReconciler::write_ledger(const Observation& o, const policy::Ledger& next) {
  const Json old =
      o.pool_object->object.value("status", Json::object()).value("nodeOperations", Json::object());
  const policy::Budget b = policy::budget(next, o.pool_size, o.catalog->replacement_limits, o.now);
  Json wanted = policy::to_json(b, next);
  if (old == wanted) return false;
  // A pool whose controller has not written its first status yet gets the figures with that
  // write: writing them first would make it lose its write to a conflict (and its Creating).
  const bool first_status_pending =
      !o.pool_object->object.value("status", Json::object()).contains("phase");
  if (first_status_pending && next.active.empty() && next.replacements.empty()) return false;
  if (!wanted.contains("nextReplacementTime")) wanted["nextReplacementTime"] = nullptr;
  Json patch = {{"metadata", {{"resourceVersion", o.pool_object->meta.resource_version}}},
                {"status", {{"nodeOperations", wanted}}}};
  kube::WriteOptions options;
  options.subresource = "status";
  auto r = ctx_.client->patch(kube::resources::resourcepools, "", o.pool, kube::PatchType::Merge,
                              patch, options);
  if (!r) return failed("writing the node-operation ledger of pool " + o.pool, r.error());
  written_.wrote_answer(o.pool, "resourcepools/" + o.pool, *r, o.now);
  ctx_.metrics->set_node_operation_budget(o.pool, b);
  return true;
}

void OperationReconciler::apply_admission(Observation& o, const policy::Admission& a) {
  for (Operation& op : o.operations) {
    if (op.deleting || policy::is_terminal(op.status.phase)) continue;
    if (auto r = a.rejected.find(op.name()); r != a.rejected.end()) {
      op.status.phase = policy::OperationPhase::Rejected;
      op.status.reason = r->second.reason;
      op.status.message = r->second.message;
      continue;
    }
    if (auto f = a.failed.find(op.name()); f != a.failed.end()) {
      for (const auto& [node, why] : f->second) {
        if (policy::NodeProgress* p = op.status.node(node)) {
          p->phase = policy::NodePhase::Failed;
          p->reason = why.reason;
          p->message = why.message;
          p->add_step("Failed", o.now, why.message);
        }
      }
    }
    for (const policy::ActiveNode& s : a.started) {
      if (s.operation != op.name()) continue;
      if (policy::NodeProgress* p = op.status.node(s.node)) {
        p->phase = policy::NodePhase::Running;
        p->start = s.start;
        p->reason.clear();
        p->message.clear();
      }
    }
    // Nodes the ledger holds are running even if a lost status write never said so.
    for (const policy::ActiveNode& l : o.ledger.active) {
      if (l.operation != op.name()) continue;
      policy::NodeProgress* p = op.status.node(l.node);
      if (p && p->phase == policy::NodePhase::Pending) {
        p->phase = policy::NodePhase::Running;
        p->start = l.start;
      }
    }
    if (auto w = a.waiting.find(op.name()); w != a.waiting.end()) {
      op.waiting = w->second;
      for (auto& p : op.status.nodes) {
        if (p.phase == policy::NodePhase::Pending) {
          p.reason = w->second.reason;
          p.message = w->second.message;
        }
      }
    }
  }
}

}  // namespace respool::reconcilers
