#pragma once
// What to do next for one node of a NodeOperation, from what the cluster shows of it. Every
// stage is visible in the cluster (markers on the node, its replacement, the reset Job), so a
// restarted operator resumes exactly where the last one stopped, and the steps of the status
// are what was observed done.
//
// Replace (N3):  mark and cordon → drain (evictions, PodDisruptionBudgets honoured) → claim an
//                idle free node of the same flavor (and zone, where the pool pins zones) →
//                its admission (the pool's, P6) → retire the old node. No idle node, or no
//                admitted replacement, by the timeout: Failed (NoIdleNode, ReplacementNotAdmitted).
// Reset (N5–N7): mark, cordon and taint respool.io/resetting → drain → the reset Job on the
//                node → re-admission (A200008, the pool's) → Available. A failed Job fails the
//                node (ResetFailed, with the Job's reason).
// Delete (N8):   mark → the pool drains and releases it (it no longer counts for the pool, so
//                the pool's scale-in takes it, and a free node takes its place unless the count
//                was lowered) → it left the pool.
// An ending (Succeeded or Failed) is written to the operation's status before the node is
// restored, so that the restore never runs twice into a new start; `restore` says what is left
// to undo on a node whose part ended.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/node_operation_status.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

// What the cluster shows of a node in an operation.
struct OperatedNode {
  bool exists = true;
  bool in_pool = true;          // carries the pool's label
  bool marked = false;          // respool.io/node-operation names this operation
  bool unschedulable = false;   // cordoned (by anyone)
  bool cordoned_by_us = false;  // respool.io/cordoned-by names this operation
  bool resetting = false;       // the respool.io/resetting taint
  bool retired = false;         // respool.io/retired
  NodeState state = NodeState::Available;
  int pods_to_drain = 0;  // not terminal, not owned by a DaemonSet
  struct Replacement {
    std::string name;
    NodeState state = NodeState::Creating;
  };
  std::optional<Replacement> replacement;  // a pool node whose replacement-for names this node
  struct ResetJob {
    bool succeeded = false;
    bool failed = false;
    std::string failure;  // the Job's Failed condition: "reason: message"
  };
  std::optional<ResetJob> reset_job;
};

enum class NodeAction {
  Mark,              // annotate (and cordon; Reset: taint resetting)
  Drain,             // evict what runs there
  ClaimReplacement,  // find an idle free node and claim it
  WaitForAdmission,  // the replacement's, or the reset node's re-admission
  Retire,            // the old node leaves the pool, retired
  StartReset,        // create the reset Job
  WaitForReset,      // the Job runs
  Readmit,           // the Job succeeded: resetting off, A200008 on
  WaitForRelease,    // Delete: the pool drains and releases it
  End,               // the part ends: write `phase` with `reason`/`message` to the status
};

struct NodeDecision {
  NodeAction action = NodeAction::Mark;
  NodePhase phase = NodePhase::Running;  // for End: Succeeded or Failed
  std::string reason;
  std::string message;
};

// `start`: when the node was admitted into the operation (the ledger's time).
NodeDecision decide_node(NodeOperationType type, const OperatedNode& node,
                         std::chrono::seconds timeout, TimePoint start, TimePoint now);

// The steps `node` shows as done, in order, with a message where one helps.
std::vector<StepRecord> observed_steps(NodeOperationType type, const OperatedNode& node);

// What is left to undo on a node whose part ended.
struct Restore {
  bool unmark = false;              // remove respool.io/node-operation (and cordoned-by)
  bool uncordon = false;            // we cordoned it, and it stays in the pool usable
  bool untaint = false;             // remove respool.io/resetting
  bool keep_cordon_reason = false;  // a failed reset: stays cordoned, the reason annotated
  bool detach_replacement = false;  // a failed replace: its replacement is an ordinary node now
  bool needed() const { return unmark || uncordon || untaint || detach_replacement; }
};
Restore restore(NodeOperationType type, NodePhase ended, const OperatedNode& node);

}  // namespace respool::policy
