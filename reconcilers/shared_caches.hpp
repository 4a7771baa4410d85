#pragma once
// The informers more than one controller reads, with their indexes: Networks, ResourcePools,
// NodeOperations, Nodes and Pods (compact), and the DaemonSets respool installed. Nodes' first
// handler keeps the free-node index current before any controller hears of a change.

#include <string>

#include "operator/runtime/manager.hpp"
#include "reconcilers/context.hpp"

namespace respool::reconcilers {

Caches add_shared_caches(runtime::Manager& manager, const std::string& flavor_label,
                         FreeNodeIndex& free_nodes);

}  // namespace respool::reconcilers
