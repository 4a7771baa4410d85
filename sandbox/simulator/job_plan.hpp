#pragma once
// The Job controller's decisions (pkg/controller/job), pure, for NonIndexed Jobs: pods pinned
// to a node (the template's spec.nodeName) are created bound, others go through the scheduler.
//
// - Pods carry the finalizer batch.kubernetes.io/job-tracking. A pod that ended (or is being
//   deleted before it succeeded, which counts as a failure) is first listed in
//   status.uncountedTerminatedPods, then its finalizer is removed, then it moves into
//   status.succeeded / status.failed: every pod is counted exactly once, across restarts.
// - Up to min(parallelism, completions - succeeded) pods run (defaults 1 and 1). A failed pod is
//   replaced after a backoff of 10 s doubling per failure (capped at 6 min), until failures
//   exceed backoffLimit (default 6): then FailureTarget and Failed (BackoffLimitExceeded) and
//   the running pods are deleted. Once `completions` pods succeeded: SuccessCriteriaMet and
//   Complete (CompletionsReached), completionTime. spec.suspend deletes running pods.
//   activeDeadlineSeconds, Indexed completion and pod failure policies are not played.
// - A pod runs its containers' command, which the simulator cannot: a Job's pod whose template
//   does not say how long it runs (sandbox.respool.io/run-seconds) gets kJobPodRunSeconds, so
//   that `kubectl create job` and `kubectl wait --for=condition=complete` behave as on a
//   cluster where the command finishes promptly.

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

inline constexpr const char* kJobPodRunSeconds = "5";

struct JobPlan {
  nlohmann::json status;                          // the Job's status as it should read
  int create = 0;                                 // pods to create now
  std::vector<std::string> remove;                // pod names to delete
  std::vector<std::string> release;               // pod names whose tracking finalizer to remove
  std::chrono::system_clock::duration recheck{};  // > 0: a backoff is running
};

// `pods`: the Job's pods (pending writes laid over).
JobPlan plan_job(const nlohmann::json& job, const std::vector<const nlohmann::json*>& pods,
                 std::chrono::system_clock::time_point now);

// The pod to create for the Job.
nlohmann::json job_pod(const nlohmann::json& job);

bool job_finished(const nlohmann::json& job);

}  // namespace respool::sandbox::sim
