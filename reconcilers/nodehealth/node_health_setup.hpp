#pragma once
// Registers the node-health controller (issue 26; H15, H16, F5): isolation taints on pool nodes
// from respool-node-agent's conditions and from allocatable accelerators. Its own cache of pool
// nodes, trimmed to what it reads (the shared nodes cache keeps compact nodes without the
// agent's conditions), one key per node.

#include <chrono>

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

// The agents' --heartbeat-period (the chart's nodeAgent.heartbeatPeriod default): a condition
// three of these old is stale (H16).
inline constexpr std::chrono::seconds kAgentHeartbeatPeriod{300};

ControllerState add_node_health_controller(runtime::Manager& manager, Context& ctx,
                                           const Options& options);

}  // namespace respool::reconcilers
