#include "sandbox/simulator/job_pod_state.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/job_indexes.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim::job_state {

int int_at(const Json& object, std::initializer_list<std::string_view> path, int fallback) {
  const Json& v = at_path(object, path);
  return v.is_number_integer() ? v.get<int>() : fallback;
}

JobSpec read_spec(const Json& job) {
  JobSpec s;
  s.indexed = string_at(job, {"spec", "completionMode"}) == "Indexed";
  const Json& suspend = at_path(job, {"spec", "suspend"});
  s.suspended = suspend.is_boolean() && suspend.get<bool>();
  s.only_failed = string_at(job, {"spec", "podReplacementPolicy"}) == "Failed" ||
                  at_path(job, {"spec", "podFailurePolicy"}).is_object();
  s.on_failure = string_at(job, {"spec", "template", "spec", "restartPolicy"}) == "OnFailure";
  if (at_path(job, {"spec", "completions"}).is_number_integer())
    s.completions = at_path(job, {"spec", "completions"}).get<int>();
  s.parallelism = int_at(job, {"spec", "parallelism"}, 1);
  s.backoff_limit = int_at(job, {"spec", "backoffLimit"}, 6);
  return s;
}

bool tracked(const Json& pod) {
  const Json& finalizers = at_path(pod, {"metadata", "finalizers"});
  return finalizers.is_array() &&
         std::find(finalizers.begin(), finalizers.end(), kJobTrackingFinalizer) != finalizers.end();
}

bool deleting(const Json& pod) {
  return !at_path(pod, {"metadata", "deletionTimestamp"}).is_null();
}

std::string phase(const Json& pod) {
  return string_at(pod, {"status", "phase"});
}

// isPodFailed: Failed, or (unless only failed pods are replaced) deleted before it succeeded.
bool counts_failed(const Json& pod, const JobSpec& spec) {
  if (phase(pod) == "Failed") return true;
  return !spec.only_failed && deleting(pod) && phase(pod) != "Succeeded";
}

int container_restarts(const Json& pod) {
  if (phase(pod) != "Running" && phase(pod) != "Pending") return 0;
  int sum = 0;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const Json& statuses = at_path(pod, {"status", list});
    if (!statuses.is_array()) continue;
    for (const auto& s : statuses)
      sum += int_at(s, {"restartCount"}, 0);
  }
  return sum;
}

std::vector<std::string> uid_list(const Json& status, const char* kind) {
  std::vector<std::string> out;
  const Json& list = at_path(status, {"uncountedTerminatedPods", kind});
  if (list.is_array())
    for (const auto& v : list)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

// When a failed pod ended: its containers' finish, else its deletion, else its creation.
std::optional<TimePoint> ended_at(const Json& pod) {
  std::optional<TimePoint> latest;
  const Json& statuses = at_path(pod, {"status", "containerStatuses"});
  if (statuses.is_array()) {
    for (const auto& s : statuses) {
      auto t = apimachinery::parse_time(string_at(s, {"state", "terminated", "finishedAt"}));
      if (t && (!latest || *t > *latest)) latest = t;
    }
  }
  if (!latest) latest = apimachinery::parse_time(string_at(pod, {"metadata", "deletionTimestamp"}));
  if (!latest) latest = apimachinery::parse_time(string_at(pod, {"metadata", "creationTimestamp"}));
  return latest;
}

bool condition_true(const Json& job, const char* type) {
  return condition_status(job, type) == kube::ConditionStatus::True;
}

// Active pods to remove so that `want` stay: for Indexed Jobs first those whose index is
// missing, out of range or taken by another active pod; then the least advanced (not ready
// before ready, unscheduled before scheduled).
std::vector<const Json*> surplus(const std::vector<const Json*>& active, const JobSpec& spec,
                                 int want) {
  std::vector<const Json*> rm, left;
  std::set<int> seen;
  for (const Json* p : active) {
    if (!spec.indexed) {
      left.push_back(p);
      continue;
    }
    auto ix = completion_index(*p, spec.completions.value_or(0));
    if (!ix || !seen.insert(*ix).second) {
      rm.push_back(p);
    } else {
      left.push_back(p);
    }
  }
  const int at_least = static_cast<int>(active.size()) - want;
  if (static_cast<int>(rm.size()) < at_least) {
    auto rank = [](const Json* p) {
      return std::tuple(condition_status(*p, "Ready") == kube::ConditionStatus::True,
                        !string_at(*p, {"spec", "nodeName"}).empty(), phase(*p) == "Running");
    };
    std::stable_sort(left.begin(), left.end(),
                     [&](const Json* a, const Json* b) { return rank(a) < rank(b); });
    left.resize(static_cast<std::size_t>(at_least) - rm.size());
    rm.insert(rm.end(), left.begin(), left.end());
  }
  return rm;
}

std::string name_of(const Json* pod) {
  return string_at(*pod, {"metadata", "name"});
}

}  // namespace respool::sandbox::sim::job_state
