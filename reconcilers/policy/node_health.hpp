#pragma once
// Isolation from the node agent's findings (H15, H16, F5): which isolation taints a pool node
// should carry for its agent conditions (GPUHealthy, NPUHealthy, InfiniBandHealthy,
// ClockSynchronized, KubeletDirectoryWritable, API.md) and its allocatable accelerators, and
// which of the taints it carries respool may remove. Pure.
//
// respool records the codes it tainted for (annotation respool.io/health-taints, "A050101,A050147")
// and removes only those: an isolation taint an administrator put there, even of the same code,
// is never recorded and never removed. A condition whose heartbeat is older than three heartbeat
// periods is stale: it is reported (H16), adds no taint, and while one is stale no taint goes.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::policy {

inline constexpr std::string_view kHealthTaintsAnnotation = "respool.io/health-taints";
// The agent's condition types whose heartbeats are stale (H16), "GPUHealthy,ClockSynchronized";
// read by the pool's status to say so.
inline constexpr std::string_view kHealthStaleAnnotation = "respool.io/health-stale";
inline constexpr std::string_view kAgentConditionTypes[] = {
    "GPUHealthy", "NPUHealthy", "InfiniBandHealthy", "ClockSynchronized",
    "KubeletDirectoryWritable"};

struct AgentCondition {
  std::string type;
  std::string status;  // True | False | Unknown
  std::string reason;  // the isolation code when False
  std::string message;
  std::optional<std::chrono::system_clock::time_point> heartbeat;
};

// The agent's conditions of a Node (status.conditions of the types above).
std::vector<AgentCondition> agent_conditions_of(const nlohmann::json& node);

struct NodeHealthDecision {
  std::vector<std::string> add;       // codes to taint isolation.respool.io/<code>:NoSchedule
  std::vector<std::string> remove;    // codes whose taint respool put there and may now remove
  std::vector<std::string> recorded;  // the annotation's codes afterwards
  std::vector<std::string> stale;     // condition types whose heartbeat is stale
  // Why each added code is wanted: "GPUHealthy: GPU 1 (GPU-b): ..." or the allocatable count.
  std::vector<std::pair<std::string, std::string>> reasons;
};

// `flavor`: the node's catalog flavor (nullptr: no accelerator promise, no A050203).
NodeHealthDecision decide_node_health(const NodeView& node,
                                      const std::vector<AgentCondition>& conditions,
                                      const Flavor* flavor,
                                      std::chrono::system_clock::time_point now,
                                      std::chrono::seconds heartbeat_period);

// The merge patch that applies a decision (taints, the two annotations), guarded by the node's
// resourceVersion; null when the node already matches.
nlohmann::json node_health_patch(const NodeView& node, const NodeHealthDecision& decision);

}  // namespace respool::policy
