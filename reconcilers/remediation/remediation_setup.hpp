#pragma once
// Registers the remediation controller (reconcilers/controller_setup.hpp).

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_remediation_controller(runtime::Manager& manager, Context& ctx,
                                           const Options& options);

}  // namespace respool::reconcilers
