#pragma once
// A failed worker's run as code-error detection reads it (O3, O8): its pod (the container's
// terminated state: exit code and reason) and the end of that run's log, read as `kubectl logs
// --tail --limit-bytes --timestamps` reads it. limitBytes keeps a log's beginning, so when the
// last 200 lines are more than 64 KiB the last 20 are read instead, then the last 2: at most
// four requests and 192 KiB per failed worker, and the lines read always end the log.

#include <optional>
#include <string>

#include "operator/kube/client.hpp"
#include "reconcilers/policy/failure_match.hpp"

namespace respool::reconcilers {

struct FailedRun {
  std::string container;
  policy::WorkerFailure failure;  // the exit code and the kubelet's reason (OOMKilled)
  bool previous = false;          // the container restarted since: the run read is the previous
  std::string log;                // the end of its log, with timestamps
  long long requests = 0, log_bytes = 0;
};

// The container's failed run in a pod object (its current state if terminated with a failure,
// else its last state: restarted since), without its log; nullopt when it has none.
std::optional<FailedRun> failed_run_of(const nlohmann::json& pod, const std::string& container);

// Reads the end of `run`'s log into it (the bounded requests above, after the pod's).
kube::Result<void> read_run_log(kube::Client& client, const std::string& ns, const std::string& pod,
                                FailedRun& run);

// nullopt: the container has no failed run (it runs, or it succeeded).
kube::Result<std::optional<FailedRun>> read_failed_run(kube::Client& client, const std::string& ns,
                                                       const std::string& pod,
                                                       const std::string& container);

}  // namespace respool::reconcilers
