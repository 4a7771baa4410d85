#pragma once
// Registers the diagnosis controllers (issue 29): a cache of the Diagnoses (their metadata, phase
// risk and spec), indexed by their Job; automatic diagnosis of the training jobs respool
// protects, keyed by Job; Standard diagnosis on demand, keyed by Diagnosis. Needs the training-job
// controller's caches: off without --training-jobs.

#include "reconcilers/controller_setup.hpp"

namespace respool::reconcilers {

ControllerState add_diagnosis_controller(runtime::Manager& manager, Context& ctx,
                                         const Options& options);

}  // namespace respool::reconcilers
