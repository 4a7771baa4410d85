#pragma once
// What the Job controller reads from a Job's spec and its pods (pkg/controller/job), for
// job_plan.cpp: the spec's switches, which pods count as failed, active, tracked, and which
// active pods are surplus.

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim::job_state {

using Json = nlohmann::json;
using TimePoint = std::chrono::system_clock::time_point;

struct JobSpec {
  bool indexed = false;
  bool suspended = false;
  bool only_failed = false;  // podReplacementPolicy Failed: terminating pods are not replaced
  bool on_failure = false;   // restartPolicy OnFailure: container restarts count as failures
  std::optional<int> completions;
  int parallelism = 1;
  int backoff_limit = 6;
};

int int_at(const Json& object, std::initializer_list<std::string_view> path, int fallback);
JobSpec read_spec(const Json& job);
// The pod carries the job-tracking finalizer.
bool tracked(const Json& pod);
bool deleting(const Json& pod);
std::string phase(const Json& pod);
// isPodFailed: Failed, or (unless only failed pods are replaced) deleted before it succeeded.
bool counts_failed(const Json& pod, const JobSpec& spec);
// Container restarts of a Running or Pending pod (pastBackoffLimitOnFailure).
int container_restarts(const Json& pod);
// status.uncountedTerminatedPods.<kind>.
std::vector<std::string> uid_list(const Json& status, const char* kind);
// When a failed pod ended: its containers' finish, else its deletion, else its creation.
std::optional<TimePoint> ended_at(const Json& pod);
bool condition_true(const Json& object, const char* type);
// Active pods to remove so that `want` stay: for Indexed Jobs first those whose index is
// missing, out of range or taken by another active pod; then the least advanced (not ready
// before ready, unscheduled before scheduled).
std::vector<const Json*> surplus(const std::vector<const Json*>& active, const JobSpec& spec,
                                 int want);
std::string name_of(const Json* pod);

}  // namespace respool::sandbox::sim::job_state
