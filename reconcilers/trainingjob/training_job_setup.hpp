#pragma once
// Registers the training-job controller (--training-jobs): a cache of every Job (whole only for
// training jobs), the pods' index by their Job, and the controller with its watches.

#include <memory>

#include "operator/runtime/manager.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/trainingjob/training_job_reconciler.hpp"

namespace respool::reconcilers {

// `ctx.caches.pods` and `.nodes` must be registered; sets `ctx.caches.training_jobs`.
std::unique_ptr<TrainingJobReconciler> add_training_job_controller(runtime::Manager& manager,
                                                                   Context& ctx, int workers);

}  // namespace respool::reconcilers
