#pragma once
// The Job controller's decisions (syncJob/manageJob in pkg/controller/job/job_controller.go of
// 1.32), pure. Pods pinned to a node (the template's spec.nodeName) are created bound, others go
// through the scheduler.
//
// - Pods carry the finalizer batch.kubernetes.io/job-tracking. A pod that failed (or, with
//   podReplacementPolicy TerminatingOrFailed, is being deleted before it succeeded) is first
//   listed in status.uncountedTerminatedPods.failed, then its finalizer is removed, then it
//   moves into status.failed: every pod is counted exactly once, across restarts. Succeeded
//   pods go the same way through uncountedTerminatedPods.succeeded (NonIndexed) or straight
//   into status.completedIndexes (Indexed).
// - Active pods (not finished, not being deleted) are kept at min(parallelism, completions -
//   succeeded); without completions, parallelism until one succeeded. With
//   podReplacementPolicy Failed, pods still terminating are waited for before replacements.
//   Indexed: each pod runs one index of [0, completions) (job_pods.hpp), the lowest pending
//   first; duplicates and surplus pods are removed, released first so they are not counted.
// - A failed pod is replaced after a backoff of 10 s doubling per failure (capped at 10 min).
//   Failures beyond backoffLimit (or, for restartPolicy OnFailure, container restarts of the
//   running pods reaching it) set FailureTarget (BackoffLimitExceeded) and delete the running
//   pods; Failed follows once no pod is terminating. Once `completions` succeeded:
//   SuccessCriteriaMet (CompletionsReached), then Complete with completionTime.
// - spec.suspend: active pods are released and deleted (not counted as failures), condition
//   Suspended True (JobSuspended); resuming sets it False (JobResumed) and status.startTime to
//   now. startTime is set when a Job first runs unsuspended and, as in 1.32, not cleared on
//   suspend (a client clears it through /status to edit the template's scheduling fields).
//   activeDeadlineSeconds, pod failure policies, success policies and backoffLimitPerIndex are
//   not played.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/simulator/job_pods.hpp"

namespace respool::sandbox::sim {

struct JobPlan {
  nlohmann::json status;                          // the Job's status as it should read
  int create = 0;                                 // NonIndexed: pods to create now
  std::vector<int> create_indexes;                // Indexed: the indexes to create pods for
  std::vector<std::string> remove;                // pod names to delete (finalizer kept)
  std::vector<std::string> release_and_remove;    // pods to release, then delete: not counted
  std::vector<std::string> release;               // pod names whose tracking finalizer to remove
  std::chrono::system_clock::duration recheck{};  // > 0: a backoff is running
};

// `pods`: the Job's pods (pending writes laid over).
JobPlan plan_job(const nlohmann::json& job, const std::vector<const nlohmann::json*>& pods,
                 std::chrono::system_clock::time_point now);

bool job_finished(const nlohmann::json& job);

}  // namespace respool::sandbox::sim
