#pragma once
// Registers the Network controller: one key per Network, one worker (a verdict on one network
// depends on every other), woken by Networks and by the pools that name them.

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_network_controller(runtime::Manager& manager, Context& ctx,
                                       const Options& options);

}  // namespace respool::reconcilers
