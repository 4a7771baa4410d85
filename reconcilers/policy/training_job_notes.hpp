#pragma once
// What a training Job's events say at each step of a restart (J2–J6): the words `kubectl
// describe job` shows, decided here so the controller only writes them.

#include <string>

#include "reconcilers/policy/training_job_step.hpp"

namespace respool::policy {

// BeginRestart: "worker-3: <reason>; restarting the job (job_reschedule[, downgraded from
// proc_restart]), restart 2 of 5[; node n-1 is kept out of the next run]".
std::string restart_note(const JobStep& step, const FaultTolerance& tolerance);

// SayExhausted: why the job is not restarted.
std::string exhausted_note(const JobStep& step, const FaultTolerance& tolerance);

// Resume: "run 3 starts[; kept off nodes n-1, n-2]".
std::string resume_note(const RestartLedger& ledger);

// BeginKill: the hang, and the in-place restart's count.
std::string hung_note(const JobStep& step, const FaultTolerance& tolerance);

}  // namespace respool::policy
