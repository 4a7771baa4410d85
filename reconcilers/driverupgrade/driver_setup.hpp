#pragma once
// Registers the driver-upgrade controller: one key per pool, like node operations, under the
// same pool lock; woken by the pool (spec, phase), its nodes, its driver DaemonSets and the pods
// on its nodes (driver pods' validation; job pods, which a Secure upgrade waits for).

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_driver_upgrade_controller(runtime::Manager& manager, Context& ctx,
                                              const Options& options);

}  // namespace respool::reconcilers
