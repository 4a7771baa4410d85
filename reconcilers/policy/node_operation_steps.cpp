#include "reconcilers/policy/node_operation_steps.hpp"

namespace respool::policy {

namespace {

std::string duration_text(std::chrono::seconds d) {
  const auto h = d.count() / 3600, m = (d.count() % 3600) / 60, s = d.count() % 60;
  std::string out;
  if (h) out += std::to_string(h) + "h";
  if (m) out += std::to_string(m) + "m";
  if (s || out.empty()) out += std::to_string(s) + "s";
  return out;
}

NodeDecision act(NodeAction action) {
  return {action, NodePhase::Running, "", ""};
}

NodeDecision end(NodePhase phase, std::string reason, std::string message) {
  return {NodeAction::End, phase, std::move(reason), std::move(message)};
}

NodeDecision decide_replace(const OperatedNode& n, std::chrono::seconds timeout, TimePoint start,
                            TimePoint now) {
  if (n.retired) {
    return end(NodePhase::Succeeded, "Replaced",
               n.replacement ? "replaced by " + n.replacement->name : "retired");
  }
  if (!n.exists) return end(NodePhase::Failed, "NodeGone", "the node no longer exists");
  if (!n.in_pool) return end(NodePhase::Failed, "NodeLeftPool", "the node left the pool");
  if (!n.marked) return act(NodeAction::Mark);
  if (n.pods_to_drain > 0) return act(NodeAction::Drain);
  const bool timed_out = now >= start + timeout;
  if (!n.replacement) {
    if (timed_out) {
      return end(NodePhase::Failed, "NoIdleNode",
                 "N3: no idle node of the same flavor (and zone) within " + duration_text(timeout) +
                     "; the node stays in the pool");
    }
    return act(NodeAction::ClaimReplacement);
  }
  if (n.replacement->state == NodeState::Available) return act(NodeAction::Retire);
  if (timed_out) {
    return end(NodePhase::Failed, "ReplacementNotAdmitted",
               "N3: replacement " + n.replacement->name + " did not pass admission within " +
                   duration_text(timeout) + " (it is " +
                   std::string(to_string(n.replacement->state)) + ")");
  }
  return act(NodeAction::WaitForAdmission);
}

NodeDecision decide_reset(const OperatedNode& n) {
  if (!n.exists) return end(NodePhase::Failed, "NodeGone", "the node no longer exists");
  if (!n.in_pool) return end(NodePhase::Failed, "NodeLeftPool", "the node left the pool");
  if (!n.marked) return act(NodeAction::Mark);
  if (n.resetting) {
    if (n.pods_to_drain > 0) return act(NodeAction::Drain);
    if (!n.reset_job) return act(NodeAction::StartReset);
    if (n.reset_job->failed)
      return end(NodePhase::Failed, "ResetFailed", "the reset Job failed: " + n.reset_job->failure);
    if (n.reset_job->succeeded) return act(NodeAction::Readmit);
    return act(NodeAction::WaitForReset);
  }
  // Re-admitted: the pool's admission (F3) brings it back to Available.
  if (n.state == NodeState::Available) return end(NodePhase::Succeeded, "Reset", "");
  if (n.state == NodeState::Abnormal) {
    return end(NodePhase::Failed, "AbnormalAfterReset",
               "the node is abnormal after its reset; it stays in the pool");
  }
  return act(NodeAction::WaitForAdmission);
}

NodeDecision decide_delete(const OperatedNode& n) {
  if (!n.exists) return end(NodePhase::Succeeded, "Deleted", "the node no longer exists");
  if (!n.in_pool) return end(NodePhase::Succeeded, "Deleted", "");
  if (!n.marked) return act(NodeAction::Mark);
  return act(NodeAction::WaitForRelease);
}

}  // namespace

NodeDecision decide_node(NodeOperationType type, const OperatedNode& node,
                         std::chrono::seconds timeout, TimePoint start, TimePoint now) {
  switch (type) {
    case NodeOperationType::Replace:
      return decide_replace(node, timeout, start, now);
    case NodeOperationType::Reset:
      return decide_reset(node);
    case NodeOperationType::Delete:
      return decide_delete(node);
  }
  return decide_delete(node);
}

std::vector<StepRecord> observed_steps(NodeOperationType type, const OperatedNode& n) {
  std::vector<StepRecord> out;
  auto add = [&out](const char* step, std::string message = {}) {
    out.push_back({step, {}, std::move(message)});
  };
  switch (type) {
    case NodeOperationType::Replace: {
      const bool cordoned = n.retired || n.replacement || (n.marked && n.unschedulable);
      if (cordoned) add("Cordoned");
      if (n.retired || n.replacement || (n.marked && n.pods_to_drain == 0)) add("Drained");
      if (n.replacement) add("ReplacementClaimed", n.replacement->name);
      if (n.replacement && (n.retired || n.replacement->state == NodeState::Available))
        add("ReplacementAdmitted", n.replacement->name);
      if (n.retired) add("Retired");
      break;
    }
    case NodeOperationType::Reset: {
      const bool readmitted = n.marked && !n.resetting;
      if (n.marked && (n.unschedulable || readmitted)) add("Cordoned");
      if (n.reset_job || readmitted || (n.marked && n.resetting && n.pods_to_drain == 0))
        add("Drained");
      if (n.reset_job || readmitted) add("ResetStarted");
      if ((n.reset_job && n.reset_job->succeeded) || readmitted) add("ResetCompleted");
      if (readmitted && n.state == NodeState::Available) add("Readmitted");
      break;
    }
    case NodeOperationType::Delete:
      if (n.marked || !n.in_pool || !n.exists) add("Draining");
      if (!n.in_pool || !n.exists) add("Released");
      break;
  }
  return out;
}

Restore restore(NodeOperationType type, NodePhase ended, const OperatedNode& n) {
  Restore r;
  if (!n.exists) return r;
  r.unmark = n.marked;
  switch (type) {
    case NodeOperationType::Replace:
      if (ended == NodePhase::Failed) {
        r.uncordon = n.in_pool && n.cordoned_by_us && n.unschedulable;
        r.detach_replacement = n.replacement.has_value();
      }
      break;
    case NodeOperationType::Reset:
      r.untaint = n.resetting;
      if (ended == NodePhase::Succeeded) {
        r.uncordon = n.in_pool && n.cordoned_by_us && n.unschedulable;
      } else {
        // A node whose reset failed is not trusted with jobs: it stays cordoned, and the
        // annotation says why, until an administrator looks at it.
        r.keep_cordon_reason = n.in_pool && n.cordoned_by_us && n.unschedulable;
      }
      break;
    case NodeOperationType::Delete:
      break;
  }
  return r;
}

}  // namespace respool::policy
