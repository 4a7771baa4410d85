// Report: each NodeOperation's status (phase, reason, nodes with their steps), its events, the
// metrics; and P9 retention of the pool's ended operations.
#include <algorithm>

#include "operator/runtime/log.hpp"
#include "reconcilers/nodeoperation/operation_reconciler.hpp"
#include "reconcilers/policy/node_operation_ledger.hpp"
#include "reconcilers/policy/node_operation_retention.hpp"

namespace respool::reconcilers {

namespace {

using kube::Json;

// The operation's reason and message: a waiting verdict; else what holds a running node; else
// the first failure.
void summarize(policy::OperationStatus& s, const std::optional<policy::Verdict>& waiting) {
  if (s.phase == policy::OperationPhase::Rejected || s.phase == policy::OperationPhase::Previewed)
    return;
  s.reason.clear();
  s.message.clear();
  if (waiting) {
    s.reason = waiting->reason;
    s.message = waiting->message;
  }
  for (const policy::NodeProgress& n : s.nodes) {
    if (!s.reason.empty()) break;
    if (n.phase == policy::NodePhase::Running && !n.reason.empty()) {
      s.reason = n.reason;
      s.message = n.name + ": " + n.message;
    }
  }
  const policy::OperationPhase phase = policy::phase_from_nodes(s.nodes);
  if (phase == policy::OperationPhase::Failed) {
    int failed = 0;
    for (const policy::NodeProgress& n : s.nodes) {
      if (n.phase != policy::NodePhase::Failed) continue;
      if (failed++ == 0) {
        s.reason = n.reason;
        s.message = n.name + ": " + n.message;
      }
    }
    if (failed > 1) s.message += " (and " + std::to_string(failed - 1) + " more failed)";
  } else if (phase == policy::OperationPhase::Succeeded) {
    s.reason = "Succeeded";
    std::string replaced;
    for (const policy::NodeProgress& n : s.nodes) {
      if (!n.replacement.empty())
        replaced += (replaced.empty() ? "" : ", ") + n.name + " by " + n.replacement;
    }
    s.message = replaced.empty() ? "every node done" : "replaced " + replaced;
  }
}

}  // namespace

void OperationReconciler::report(Observation& o, Round& round) {
  std::map<std::string, int> in_operation = {{"Replace", 0}, {"Reset", 0}, {"Delete", 0}};
  for (const auto& a : o.ledger.active)
    ++in_operation[std::string(policy::to_string(a.type))];
  ctx_.metrics->set_nodes_in_operation(o.pool, in_operation);
  if (o.pool_object) {
    ctx_.metrics->set_node_operation_budget(
        o.pool, policy::budget(o.ledger, o.pool_size, o.catalog->replacement_limits, o.now));
  }

  for (Operation& op : o.operations) {
    policy::OperationStatus& s = op.status;
    if (s.phase == policy::OperationPhase::Rejected && policy::is_terminal(op.old_status.phase))
      continue;  // ended before: nothing moves
    if (policy::is_terminal(op.old_status.phase) && s == op.old_status) continue;
    if (op.old_status.phase == policy::OperationPhase::Previewed) continue;  // decided once
    summarize(s, op.waiting);
    policy::settle_status(s, o.now);
    if (s == op.old_status) continue;
    Json updated = op.object->object;
    updated["status"] = policy::to_json(s);
    auto r = ctx_.client->update_status(kube::resources::nodeoperations, "", updated);
    if (!r) {
      if (r.error().is(kube::Error::Kind::Conflict) || r.error().is(kube::Error::Kind::NotFound)) {
        round.busy = true;  // a stale cache: the next round builds it again from what it shows
        continue;
      }
      round.note(failed("writing the status of NodeOperation " + op.name(), r.error()));
      continue;
    }
    written_.wrote_answer(o.pool, "nodeoperations/" + op.name(), *r, o.now);
    const std::string type = op.spec ? std::string(policy::to_string(op.spec->type)) : "Unknown";
    // Events: the operation's phase, and each node's ending.
    if (s.phase != op.old_status.phase) {
      const bool bad =
          s.phase == policy::OperationPhase::Failed || s.phase == policy::OperationPhase::Rejected;
      const std::string phase(policy::to_string(s.phase));
      const std::string message = type + " " + phase + (s.message.empty() ? "" : ": " + s.message);
      ctx_.events->event(reference_to(*op.object),
                         bad ? runtime::EventType::Warning : runtime::EventType::Normal, phase,
                         type, message);
      if (o.pool_object && s.phase != policy::OperationPhase::Pending) {
        ctx_.events->event(reference_to(*o.pool_object),
                           bad ? runtime::EventType::Warning : runtime::EventType::Normal,
                           "NodeOperation" + phase, type,
                           "NodeOperation " + op.name() + ": " + message);
      }
      if (policy::is_terminal(s.phase)) ctx_.metrics->count_node_operation(type, phase);
    }
    for (const auto& n : s.nodes) {
      const policy::NodeProgress* before = op.old_status.node(n.name);
      if (!policy::is_terminal(n.phase) || (before && before->phase == n.phase)) continue;
      const bool ok = n.phase == policy::NodePhase::Succeeded;
      ctx_.events->event(reference_to(*op.object),
                         ok ? runtime::EventType::Normal : runtime::EventType::Warning,
                         ok ? "NodeSucceeded" : "NodeFailed", type,
                         "node " + n.name + (ok ? " done" : " failed: " + n.reason) +
                             (n.message.empty() ? "" : ": " + n.message));
      runtime::log::info("nodeoperation", "node part ended",
                         {{"pool", o.pool},
                          {"operation", op.name()},
                          {"node", n.name},
                          {"phase", std::string(policy::to_string(n.phase))},
                          {"reason", n.reason}});
    }
  }
}

std::optional<runtime::TimePoint> OperationReconciler::retain(const Observation& o) {
  std::vector<policy::EndedOperation> ended;
  for (const Operation& op : o.operations) {
    if (op.deleting || !policy::is_terminal(op.old_status.phase) || !op.old_status.completion)
      continue;
    if (o.ledger.active_of(op.name()) > 0) continue;  // still restoring a node
    ended.push_back({op.name(), op.old_status.phase, *op.old_status.completion});
  }
  for (const std::string& name : policy::expired_operations(ended, o.now)) {
    auto r = ctx_.client->remove(kube::resources::nodeoperations, "", name);
    if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
      runtime::log::warn("nodeoperation", "removing an expired NodeOperation failed",
                         {{"operation", name}, {"error", r.error().describe()}});
      for (const Operation& op : o.operations) {
        if (op.name() == name)
          ctx_.events->event(reference_to(*op.object), runtime::EventType::Warning,
                             "RecordNotRemoved", "Retention",
                             "removing this expired record (P9) failed: " + r.error().describe());
      }
      continue;
    }
    std::erase_if(ended, [&](const auto& e) { return e.name == name; });
    runtime::log::info("nodeoperation", "expired record removed (P9)", {{"operation", name}});
  }
  return policy::next_expiry(ended);
}

}  // namespace respool::reconcilers
