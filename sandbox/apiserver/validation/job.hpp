#pragma once
// The Job template update rule (pkg/apis/batch/validation, 1.32); validate_job: kinds_rules.hpp.

#include <vector>

#include "sandbox/apiserver/errors.hpp"

namespace respool::sandbox::kinds {

// spec.template is immutable, except that a Job suspended and never started (status.startTime
// unset; a client may clear it through /status) may change its pod template's labels,
// annotations, nodeSelector, tolerations, schedulingGates and node affinity
// (AllowMutableSchedulingDirectives in pkg/registry/batch/job/strategy.go).
void validate_job_template_update(const Json& job, const Json& old, std::vector<Cause>& out);

// validatePodFailurePolicy and validateSuccessPolicy of a Job spec (validation/job_policies.cpp).
void job_policy_rules(const Json& spec, std::vector<Cause>& out);

}  // namespace respool::sandbox::kinds
