// The node-operation controller's work on one node: what the cluster shows of it, its next
// step (policy::decide_node), and the guarded writes each step makes.
#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/nodeoperation/operation_reconciler.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_operation_patch.hpp"
#include "reconcilers/policy/node_patch.hpp"
#include "reconcilers/policy/pool_plan.hpp"
#include "reconcilers/policy/time.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

using kube::Json;

std::string job_failure(const Json& job) {
  for (const auto& c : job.value("status", Json::object()).value("conditions", Json::array())) {
    if (c.value("type", "") == "Failed" && c.value("status", "") == "True")
      return c.value("reason", "Failed") + ": " + c.value("message", "");
  }
  return "";
}

bool job_condition(const Json& job, std::string_view type) {
  for (const auto& c : job.value("status", Json::object()).value("conditions", Json::array())) {
    if (c.value("type", "") == type && c.value("status", "") == "True") return true;
  }
  return false;
}

}  // namespace

bool to_drain(const kube::Pod& pod) {
  return !pod.terminal() && !pod.owned_by_daemonset() &&
         !pod.meta.labels.get(policy::kNodeOperationLabel);
}

std::vector<policy::FreeNode> OperationReconciler::idle_free_nodes(const Observation& o,
                                                                   const std::string& flavor,
                                                                   const std::string* zone) const {
  std::vector<policy::FreeNode> candidates;
  for (const policy::FreeNode& f :
       ctx_.free_nodes->list(o.catalog, [this] { return ctx_.caches.nodes->store().list(); })) {
    if (f.flavor != flavor || (zone && f.zone != *zone)) continue;
    // Idle: nothing but DaemonSet pods runs there.
    const auto pods = ctx_.caches.pods->store().by_index(kByNode, f.name);
    if (std::any_of(pods.begin(), pods.end(), [](const auto& p) { return to_drain(*p); })) continue;
    candidates.push_back(f);
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return candidates;
}

std::string OperationReconciler::delete_outcome(const Observation& o, const std::string& node,
                                                const policy::OperatedNode& f) const {
  if (f.replacement) return "left the pool; " + f.replacement->name + " took its place";
  // Whose count went down with it, or a pool still waiting for a free node.
  auto cached = ctx_.caches.nodes->store().get(node);
  std::string flavor;
  if (cached) flavor = policy::pool_node(*ctx_.node_views->view(cached), *o.catalog, 0).flavor;
  const policy::FlavorRequest* request = o.pool_spec ? o.pool_spec->resource(flavor) : nullptr;
  int have = 0;
  for (const auto& n : o.pool_nodes)
    have += n.flavor == flavor && !n.operation;
  if (request && have < request->count)
    return "left the pool; no free node has taken its place yet (the pool is queuing for one)";
  return "left the pool; the pool's count went down with it, so no node takes its place";
}

policy::OperatedNode OperationReconciler::facts(const Observation& o, const std::string& operation,
                                                const std::string& node) const {
  policy::OperatedNode f;
  auto cached = ctx_.caches.nodes->store().get(node);
  if (!cached) {
    f.exists = false;
    f.in_pool = false;
    return f;
  }
  auto view = ctx_.node_views->view(cached);
  const policy::NodeView& v = *view;
  auto annotation = [&v](std::string_view key) -> std::string {
    auto it = v.annotations.find(key);
    return it == v.annotations.end() ? std::string() : it->second;
  };
  const std::string* pool = v.label(policy::kPoolLabel);
  f.in_pool = pool && *pool == o.pool;
  f.marked = annotation(policy::kNodeOperationAnnotation) == operation;
  f.unschedulable = v.unschedulable;
  f.cordoned_by_us = annotation(policy::kCordonedByAnnotation) == operation;
  f.resetting = v.has_taint(policy::kResettingTaintKey);
  f.retired = v.label(policy::kRetiredKey) != nullptr;
  f.state = policy::pool_node(v, *o.catalog, 0).state.state;
  for (const auto& pod : ctx_.caches.pods->store().by_index(kByNode, node)) {
    if (to_drain(*pod)) ++f.pods_to_drain;
  }
  for (const policy::PoolNode& n : o.pool_nodes) {
    if (n.replacement_for == node && n.name != node) {
      f.replacement = policy::OperatedNode::Replacement{n.name, n.state.state};
      break;
    }
  }
  if (!f.replacement && f.retired) {
    // Retired: its replacement's name is in the retired annotation's message only; the status
    // has it. Leave it empty here.
  }
  if (auto job = ctx_.caches.reset_jobs->store().get(ctx_.operator_namespace + "/" +
                                                     reset_job_name(operation, node))) {
    f.reset_job = policy::OperatedNode::ResetJob{job_condition(job->object, "Complete"),
                                                 job_condition(job->object, "Failed"),
                                                 job_failure(job->object)};
  }
  return f;
}

void OperationReconciler::advance(Observation& o, Operation& op, const policy::ActiveNode& active,
                                  Round& round) {
  if (!op.spec || op.deleting) return;
  policy::NodeProgress* p = op.status.node(active.node);
  if (!p || policy::is_terminal(p->phase)) return;
  const policy::OperatedNode f = facts(o, op.name(), active.node);

  // The steps the cluster shows done; a claim or a retirement whose audit line may have been
  // lost with the run that made it is audited again, saying so (at least once, A1).
  for (const policy::StepRecord& s : policy::observed_steps(active.type, f)) {
    if (p->has_step(s.step)) continue;
    const std::string key = op.name() + "/" + active.node + "/" + s.step;
    if ((s.step == "ReplacementClaimed" || s.step == "Retired") && !audit_remembered(key)) {
      const bool claimed = s.step == "ReplacementClaimed";
      audit(claimed ? policy::AuditOperation::addClusterNode
                    : policy::AuditOperation::deleteClusterNode,
            o.pool, claimed ? s.message : active.node,
            (claimed ? "replacement for " + active.node : "retired, replaced") +
                " (NodeOperation " + op.name() + "); audited on recovery");
    }
    p->add_step(s.step, o.now, s.message);
  }
  if (f.replacement) p->replacement = f.replacement->name;

  const policy::NodeDecision d =
      policy::decide_node(active.type, f, op.spec->timeout, active.start, o.now);
  p->reason = d.reason;
  p->message = d.message;
  switch (d.action) {
    case policy::NodeAction::Mark:
      round.busy = true;
      round.note(mark(o, op, active.node, *p));
      break;
    case policy::NodeAction::Drain:
      round.busy = true;
      round.note(drain(op, active.node, *p, round));
      break;
    case policy::NodeAction::ClaimReplacement:
      round.note(claim_replacement(o, op, active.node, *p, round));
      round.at(active.start + op.spec->timeout);
      break;
    case policy::NodeAction::WaitForAdmission:
      round.busy = true;
      p->message = f.replacement ? "replacement " + f.replacement->name + " is in admission"
                                 : "the node is in admission after its reset";
      if (active.type == policy::NodeOperationType::Replace)
        round.at(active.start + op.spec->timeout);
      break;
    case policy::NodeAction::Retire:
      round.busy = true;
      round.note(retire(o, op, active.node, f.replacement->name, *p));
      break;
    case policy::NodeAction::StartReset:
      round.busy = true;
      round.note(start_reset(o, op, active.node, *p));
      break;
    case policy::NodeAction::WaitForReset:
      p->message = "the reset Job " + reset_job_name(op.name(), active.node) + " runs";
      break;
    case policy::NodeAction::Readmit:
      round.busy = true;
      round.note(readmit(o, active.node, *p));
      break;
    case policy::NodeAction::WaitForRelease:
      round.busy = true;
      p->message = "the pool drains and releases the node";
      break;
    case policy::NodeAction::End:
      if (active.type == policy::NodeOperationType::Delete &&
          d.phase == policy::NodePhase::Succeeded)
        p->message = delete_outcome(o, active.node, f);
      p->phase = d.phase;
      p->add_step(d.phase == policy::NodePhase::Succeeded ? "Succeeded" : "Failed", o.now,
                  d.message);
      break;
  }
}

Outcome<void> OperationReconciler::mark(Observation& o, Operation& op, const std::string& node,
                                        policy::NodeProgress& progress) {
  auto cached = ctx_.caches.nodes->store().get(node);
  if (!cached) return {};
  // The job pods this operation interrupts (N8: say so).
  std::vector<std::string> jobs;
  for (const auto& pod : ctx_.caches.pods->store().by_index(kByNode, node)) {
    if (is_running_job(*pod, ctx_.job_selector)) jobs.push_back(pod->meta.key());
  }
  auto r = ctx_.client->patch(
      kube::resources::nodes, "", node, kube::PatchType::Merge,
      policy::mark_patch(*ctx_.node_views->view(cached), op.name(), op.spec->type));
  if (!r) {
    if (lost_race(r.error())) return {};
    return failed("marking node " + node, r.error());
  }
  progress.message = "marked for " + std::string(policy::to_string(op.spec->type));
  for (const auto& j : jobs) {
    if (std::find(op.status.interrupted_jobs.begin(), op.status.interrupted_jobs.end(), j) ==
        op.status.interrupted_jobs.end())
      op.status.interrupted_jobs.push_back(j);
  }
  if (!jobs.empty()) {
    std::string list;
    for (const auto& j : jobs)
      list += (list.empty() ? "" : ", ") + j;
    const std::string message = std::string(policy::to_string(op.spec->type)) + " of node " + node +
                                " interrupts " + std::to_string(jobs.size()) +
                                " running job pod(s): " + list + " (N8)";
    ctx_.events->event(reference_to(*op.object), runtime::EventType::Warning, "JobsInterrupted",
                       std::string(policy::to_string(op.spec->type)), message);
    if (o.pool_object) {
      ctx_.events->event(reference_to(*o.pool_object), runtime::EventType::Warning,
                         "JobsInterrupted", std::string(policy::to_string(op.spec->type)), message);
    }
  }
  runtime::log::info("nodeoperation", "node marked",
                     {{"pool", o.pool}, {"operation", op.name()}, {"node", node}});
  return {};
}

Outcome<void> OperationReconciler::drain(Operation& op, const std::string& node,
                                         policy::NodeProgress& progress, Round& round) {
  int evicting = 0;
  std::string blocked;
  for (const auto& pod : ctx_.caches.pods->store().by_index(kByNode, node)) {
    if (!to_drain(*pod)) continue;
    ++evicting;
    if (pod->meta.deletion_timestamp) continue;  // already going
    auto r = ctx_.client->evict(pod->meta.namespace_.view(), pod->meta.name);
    if (r || r.error().is(kube::Error::Kind::NotFound)) continue;
    if (!r.error().is(kube::Error::Kind::TooManyRequests))
      return failed("evicting pod " + pod->meta.key(), r.error());
    // A PodDisruptionBudget holds it: the node stays cordoned, and the drain is retried.
    std::string why = r.error().message;
    for (const auto& c :
         r.error().status.value("details", Json::object()).value("causes", Json::array())) {
      if (c.value("reason", "") == "DisruptionBudget") why = c.value("message", why);
    }
    if (blocked.empty()) blocked = "evicting pod " + pod->meta.key() + " is blocked: " + why;
    round.at(ctx_.clock->now() + std::chrono::seconds(5));
  }
  progress.reason = blocked.empty() ? "" : "DrainBlocked";
  progress.message =
      blocked.empty() ? "draining: " + std::to_string(evicting) + " pod(s) to move" : blocked;
  (void)op;
  return {};
}

Outcome<void> OperationReconciler::claim_replacement(Observation& o, Operation& op,
                                                     const std::string& node,
                                                     policy::NodeProgress& progress, Round& round) {
  auto old = ctx_.caches.nodes->store().get(node);
  if (!old || !o.pool_spec) {
    progress.message = "waiting for the pool's spec to be valid";
    return {};
  }
  const policy::PoolNode old_node = policy::pool_node(*ctx_.node_views->view(old), *o.catalog, 0);
  const policy::FlavorRequest* request = o.pool_spec->resource(old_node.flavor);
  // N3: the same flavor, and the same zone where the pool pins zones.
  const bool pinned = request && !request->zones.empty();
  const std::string where =
      "flavor " + old_node.flavor + (pinned ? " in zone " + old_node.zone : std::string());
  // P6 holds for replacements too; and the cache must show earlier claims first.
  int in_admission = 0;
  for (const auto& n : o.pool_nodes)
    in_admission += n.state.state == policy::NodeState::Creating;
  const bool waiting = node_writes_behind(ctx_, o.pool, o.now);
  if (waiting || in_admission >= policy::kAdmissionWindow) {
    round.busy = true;
    progress.message = "waiting for the pool's admission window (P6)";
    return {};
  }
  const std::vector<policy::FreeNode> candidates =
      idle_free_nodes(o, old_node.flavor, pinned ? &old_node.zone : nullptr);
  if (candidates.empty()) {
    progress.reason = "WaitingForIdleNode";
    progress.message = "N3: no idle free node of " + where + " yet; failing at " +
                       policy::format_time(*progress.start + op.spec->timeout);
    round.at(o.now + std::chrono::seconds(10));
    return {};
  }
  const policy::FreeNode& chosen = candidates.front();
  auto cached = ctx_.caches.nodes->store().get(chosen.name);
  if (!cached || cached->meta.resource_version != chosen.resource_version) {
    round.busy = true;
    return {};
  }
  const int space =
      request ? request->container_engine_space_gib : policy::kMinContainerEngineSpaceGiB;
  auto r = ctx_.client->patch(kube::resources::nodes, "", chosen.name, kube::PatchType::Merge,
                              policy::claim_patch(*ctx_.node_views->view(cached), o.pool,
                                                  o.pool_spec->job_types, space, node));
  if (!r) {
    if (lost_race(r.error())) {
      round.busy = true;
      return {};
    }
    return failed("claiming node " + chosen.name, r.error());
  }
  ctx_.node_writes->wrote_answer(o.pool, chosen.name, *r, o.now);
  const std::string key = op.name() + "/" + node + "/ReplacementClaimed";
  remember_audit(key, true);
  audit(policy::AuditOperation::addClusterNode, o.pool, chosen.name,
        "replacement for " + node + " (NodeOperation " + op.name() + "), " + where);
  progress.add_step("ReplacementClaimed", o.now, chosen.name);
  progress.replacement = chosen.name;
  progress.reason.clear();
  progress.message = "replacement " + chosen.name + " claimed";
  round.busy = true;
  runtime::log::info("nodeoperation", "replacement claimed",
                     {{"pool", o.pool}, {"node", node}, {"replacement", chosen.name}});
  return {};
}

Outcome<void> OperationReconciler::retire(Observation& o, Operation& op, const std::string& node,
                                          const std::string& replacement,
                                          policy::NodeProgress& progress) {
  auto cached = ctx_.caches.nodes->store().get(node);
  if (!cached) return {};
  auto r =
      ctx_.client->patch(kube::resources::nodes, "", node, kube::PatchType::Merge,
                         policy::retire_patch(*ctx_.node_views->view(cached), op.name(), o.pool,
                                              replacement, policy::format_time(o.now)));
  if (!r) {
    if (lost_race(r.error())) return {};
    return failed("retiring node " + node, r.error());
  }
  remember_audit(op.name() + "/" + node + "/Retired", true);
  audit(policy::AuditOperation::deleteClusterNode, o.pool, node,
        "retired, replaced by " + replacement + " (NodeOperation " + op.name() + ")");
  progress.add_step("Retired", o.now);
  progress.message = "retired; replaced by " + replacement;
  runtime::log::info("nodeoperation", "node retired",
                     {{"pool", o.pool}, {"node", node}, {"replacement", replacement}});
  return {};
}

Outcome<void> OperationReconciler::start_reset(Observation& o, Operation& op,
                                               const std::string& node,
                                               policy::NodeProgress& progress) {
  if (o.catalog->reset_image.empty()) {
    progress.reason = "NoResetImage";
    progress.message = "the catalog names no reset image (reset.image)";
    return {};
  }
  const std::string os = op.spec->reset ? op.spec->reset->os : "";
  const std::string name = reset_job_name(op.name(), node);
  const std::string op_label = op.name().size() <= 63 ? op.name() : name;
  const std::string node_label = node.size() <= 63 ? node : name;
  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", name},
                {"namespace", ctx_.operator_namespace},
                {"labels",
                 {{std::string(policy::kNodeOperationLabel), op_label},
                  {std::string(policy::kPoolLabel), o.pool},
                  {std::string(policy::kNodeLabel), node_label},
                  {"app.kubernetes.io/managed-by", "respool"}}},
                {"annotations",
                 {{std::string(policy::kNodeOperationAnnotation), op.name()},
                  {std::string(policy::kNodeLabel), node}}}}},
              {"spec",
               {{"backoffLimit", 0},
                {"template",
                 {{"metadata",
                   {{"labels", {{std::string(policy::kNodeOperationLabel), op_label}}},
                    {"annotations", {{std::string(policy::kResetOsAnnotation), os}}}}},
                  {"spec",
                   {{"nodeName", node},
                    {"restartPolicy", "Never"},
                    {"tolerations", Json::array({{{"operator", "Exists"}}})},
                    {"containers",
                     Json::array({{{"name", "reset"},
                                   {"image", o.catalog->reset_image},
                                   {"args", Json::array({"--os", os})},
                                   {"env", Json::array({{{"name", "NODE_NAME"}, {"value", node}},
                                                        {{"name", "RESET_OS"}, {"value", os}}})},
                                   {"securityContext", {{"privileged", true}}}}})}}}}}}}};
  auto r = ctx_.client->create(kube::resources::jobs, ctx_.operator_namespace, job);
  if (!r && !r.error().is(kube::Error::Kind::AlreadyExists))
    return failed("creating reset Job " + name, r.error());
  progress.add_step("ResetStarted", o.now, os);
  progress.message = "the reset Job " + name + " installs " + os;
  return {};
}

Outcome<void> OperationReconciler::readmit(Observation& o, const std::string& node,
                                           policy::NodeProgress& progress) {
  auto cached = ctx_.caches.nodes->store().get(node);
  if (!cached) return {};
  auto view = ctx_.node_views->view(cached);
  // N7: on GPU/NPU nodes of a pool with a driver version, the driver is brought to it.
  const policy::PoolNode n = policy::pool_node(*view, *o.catalog, 0);
  const policy::Flavor* flavor = o.catalog->flavor(n.flavor);
  bool driver = false;
  if (flavor && o.pool_spec && o.pool_spec->driver) {
    driver = (flavor->accelerator.type == policy::AcceleratorType::GPU &&
              o.pool_spec->driver->gpu_version) ||
             (flavor->accelerator.type == policy::AcceleratorType::NPU &&
              o.pool_spec->driver->npu_version);
  }
  auto r = ctx_.client->patch(kube::resources::nodes, "", node, kube::PatchType::Merge,
                              policy::readmit_patch(*view, driver));
  if (!r) {
    if (lost_race(r.error())) return {};
    return failed("re-admitting node " + node, r.error());
  }
  progress.add_step("ResetCompleted", o.now);
  progress.message = driver ? "reset; in admission, the driver to be brought to the pool's version"
                            : "reset; in admission";
  return {};
}

Outcome<void> OperationReconciler::restore_node(Observation& o, const policy::ActiveNode& active,
                                                policy::NodePhase ended) {
  const policy::OperatedNode f = facts(o, active.operation, active.node);
  const policy::Restore r = policy::restore(active.type, ended, f);
  if (auto cached = ctx_.caches.nodes->store().get(active.node); cached && r.needed()) {
    std::string reason = "NodeOperation " + active.operation + ": reset failed";
    if (Operation* op = o.operation(active.operation)) {
      if (const auto* p = op->status.node(active.node)) reason += ": " + p->message;
    }
    Json patch = policy::restore_patch(*ctx_.node_views->view(cached), r, reason);
    if (!patch.is_null()) {
      auto w = ctx_.client->patch(kube::resources::nodes, "", active.node, kube::PatchType::Merge,
                                  patch);
      if (!w && !lost_race(w.error())) return failed("restoring node " + active.node, w.error());
    }
  }
  if (r.detach_replacement && f.replacement) {
    if (auto cached = ctx_.caches.nodes->store().get(f.replacement->name)) {
      Json patch = policy::detach_replacement_patch(*ctx_.node_views->view(cached));
      if (!patch.is_null()) {
        auto w = ctx_.client->patch(kube::resources::nodes, "", f.replacement->name,
                                    kube::PatchType::Merge, patch);
        if (!w && !lost_race(w.error()))
          return failed("detaching replacement " + f.replacement->name, w.error());
      }
    }
  }
  if (f.reset_job) {
    kube::DeleteOptions options;
    options.propagation_policy = "Background";
    auto w = ctx_.client->remove(kube::resources::jobs, ctx_.operator_namespace,
                                 reset_job_name(active.operation, active.node), options);
    if (!w && !w.error().is(kube::Error::Kind::NotFound))
      return failed("deleting the reset Job of " + active.node, w.error());
  }
  return {};
}

void OperationReconciler::audit(policy::AuditOperation op, const std::string& pool,
                                const std::string& node, const std::string& message) {
  policy::AuditRecord record{
      op, pool, node, std::nullopt, ctx_.clock->now(), policy::AuditResult::Success, message};
  write_audit(policy::audit_line(record));
}

}  // namespace respool::reconcilers
