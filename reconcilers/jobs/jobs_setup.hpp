#pragma once
// Registers the jobs controller (reconcilers/controller_setup.hpp): each pool's running and
// waiting jobs in status.jobs, and the Queued events (Q1–Q5).

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_jobs_controller(runtime::Manager& manager, Context& ctx,
                                    const Options& options);

}  // namespace respool::reconcilers
