#pragma once
// Registers the training-job controller (--training-jobs): a cache of every Job (whole only for
// training jobs), the pods' index by their Job, and the controller with its watches.

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

// Sets `ctx.caches.training_jobs`; nullptr (nothing registered) without --training-jobs.
ControllerState add_training_job_controller(runtime::Manager& manager, Context& ctx,
                                            const Options& options);

}  // namespace respool::reconcilers
