#pragma once
// Registers the NodeOperation controller. Its key is the pool, not the operation, so that every
// decision about a pool's operations is made in one place; failures are reported on the pool.
// Its own cache: the reset Jobs it runs (in the operator's namespace, where RBAC grants them).

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_node_operation_controller(runtime::Manager& manager, Context& ctx,
                                              const Options& options);

}  // namespace respool::reconcilers
