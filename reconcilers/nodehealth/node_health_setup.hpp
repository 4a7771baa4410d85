#pragma once
// Registers the node-health controller (issue 26; H15, H16, F5): isolation taints on pool nodes
// from respool-node-agent's conditions and from allocatable accelerators. Its own cache of pool
// nodes, trimmed to what it reads (the shared nodes cache keeps compact nodes without the
// agent's conditions), one key per node.

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_node_health_controller(runtime::Manager& manager, Context& ctx,
                                           const Options& options);

}  // namespace respool::reconcilers
