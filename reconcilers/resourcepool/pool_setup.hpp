#pragma once
// Registers the ResourcePool controller: one key per pool, woken by the pool, its nodes (and
// every free node, which any waiting pool may claim), the pods on its nodes, its plug-ins, its
// network and its NodeOperations (Delete operations decide which node scale-in takes first).

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_pool_controller(runtime::Manager& manager, Context& ctx,
                                    const Options& options);

}  // namespace respool::reconcilers
