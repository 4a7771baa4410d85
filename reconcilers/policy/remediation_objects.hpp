#pragma once
// Automatic remediation (N10–N16) between the cluster's objects and policy/remediation.hpp: a
// pool node's remediable fault codes, a NodeOperation seen as automatic or as a person's, the
// NodeOperation an action creates, and what the pool's status.remediation and its
// RemediationPaused condition say.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/conditions.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/remediation.hpp"

namespace respool::policy {

// A pool node as remediation sees it. Its fault codes are its fault isolation taints (whoever
// put them there) and, while it is abnormal, the codes detected from its state (A050202,
// A050203); a node being reset or replaced keeps its isolation taints, so its fault stays in
// view while its operation runs. Operational codes (F4) are never faults.
RemediationNode remediation_node(const NodeView& view, const PoolNode& node);

// What one NodeOperation of the pool means to remediation.
struct OperationOnNodes {
  std::vector<std::string> nodes;                       // spec.nodes
  NodeOperationType type = NodeOperationType::Replace;  // spec.type
  bool active = false;                                  // not ended (nor being deleted)
  std::optional<AutomaticOperation> automatic;          // set: respool's remediation created it
};
OperationOnNodes operation_on_nodes(const nlohmann::json& operation);

// Folds the pool's operations into its nodes: a person's active operation holds a node (N12);
// the automatic operation with the highest step and attempt is the node's newest.
void attach_operations(std::vector<RemediationNode>& nodes,
                       const std::vector<std::pair<std::string, OperationOnNodes>>& operations);

// The NodeOperation that carries out `action` in `pool` (owned by the pool, so that it goes with
// it; labelled so that a person and the controller see it is automatic, its step and attempt).
nlohmann::json remediation_operation(const RemediationAction& action, const std::string& pool,
                                     const std::string& pool_uid);

// status.remediation: paused and why, the abnormal count against maxUnhealthy, and per node
// its memory (what the next round reads back) with its state, message and next action.
// For `kubectl get rp -o wide`: Paused, Idle (no node to remediate), or the nodes by state
// ("1 Running, 2 Waiting").
std::string remediation_summary(const RemediationPlan& plan);
nlohmann::json remediation_status(const RemediationPlan& plan, const RemediationInput& input);
// status.remediation when spec.remediation is invalid: nothing is done, and the status says why.
nlohmann::json remediation_status_invalid(const std::vector<Violation>& violations);

inline constexpr std::string_view kRemediationPausedCondition = "RemediationPaused";
// RemediationPaused from status.remediation (N14): True (TooManyUnhealthy) while the breaker is
// open, False (InvalidRemediation) when the spec cannot be followed, else False (Active).
Condition remediation_condition(const nlohmann::json& status_remediation);

}  // namespace respool::policy
