#pragma once
// H14: from one period's findings and the conditions the Node shows, what to write: nothing
// when every condition already says it and no heartbeat is due; otherwise a strategic merge
// patch of nodes/status carrying all of the agent's current conditions (merged by type, so the
// kubelet's are untouched), each with a fresh lastHeartbeatTime. Pure.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/checks/finding.hpp"

namespace respool::agent {

using TimePoint = std::chrono::system_clock::time_point;

struct NodeCondition {
  std::string type;
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;
  std::string message;
  TimePoint last_heartbeat{};
  TimePoint last_transition{};
  bool operator==(const NodeCondition&) const = default;
};

// A Node's conditions of the agent's types, from its JSON (other types are left out).
std::vector<NodeCondition> agent_conditions(const nlohmann::json& node);

// What a family's result says: nullopt when it says nothing (the check does not apply here, or
// it could not read and found no fault).
std::optional<NodeCondition> desired_condition(const FamilyResult& result, TimePoint now);

// One condition that changed status, for the node's events.
struct Transition {
  Family family;
  std::string from;  // "" when the Node had no such condition
  NodeCondition to;
};

struct ConditionPlan {
  nlohmann::json patch;  // null: nothing to write
  bool heartbeat_only = false;
  std::vector<NodeCondition> written;  // the agent's conditions after the write
  std::vector<Transition> transitions;
};

ConditionPlan plan_conditions(const std::vector<NodeCondition>& current,
                              const std::vector<FamilyResult>& results, TimePoint now,
                              std::chrono::seconds heartbeat_period);

}  // namespace respool::agent
