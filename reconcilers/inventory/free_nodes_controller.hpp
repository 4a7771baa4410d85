#pragma once
// respool_free_nodes{flavor,zone}: the free nodes (N9) of every flavor and zone that has nodes,
// recounted by a one-key controller on node changes at most once per second. A gauge scraped
// every few seconds gains nothing from a recount per node event, and a pool being built changes
// thousands of nodes within seconds.

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_free_nodes_controller(runtime::Manager& manager, Context& ctx,
                                          const Options& options);

}  // namespace respool::reconcilers
