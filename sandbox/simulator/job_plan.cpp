#include "sandbox/simulator/job_plan.hpp"

#include <algorithm>
#include <map>

#include "operator/kube/time.hpp"
#include "sandbox/simulator/conditions.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;
using TimePoint = std::chrono::system_clock::time_point;

bool tracked(const Json& pod) {
  const Json& finalizers = at_path(pod, {"metadata", "finalizers"});
  return finalizers.is_array() &&
         std::find(finalizers.begin(), finalizers.end(), kJobTrackingFinalizer) != finalizers.end();
}

bool job_pod_deleting(const Json& pod) {
  return !at_path(pod, {"metadata", "deletionTimestamp"}).is_null();
}

std::string phase(const Json& pod) {
  return string_at(pod, {"status", "phase"});
}

int job_int_field(const Json& object, std::initializer_list<std::string_view> path, int fallback) {
  const Json& v = at_path(object, path);
  return v.is_number_integer() ? v.get<int>() : fallback;
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
      auto t = kube::parse_time(string_at(s, {"state", "terminated", "finishedAt"}));
      if (t && (!latest || *t > *latest)) latest = t;
    }
  }
  if (!latest) latest = kube::parse_time(string_at(pod, {"metadata", "deletionTimestamp"}));
  if (!latest) latest = kube::parse_time(string_at(pod, {"metadata", "creationTimestamp"}));
  return latest;
}

void finish(Json& job, const char* interim, const char* final_type, const char* reason,
            const char* message, TimePoint now) {
  set_condition(job, {interim, "True", reason, message}, now, ConditionStyle::Plain);
  set_condition(job, {final_type, "True", reason, message}, now, ConditionStyle::Plain);
}

}  // namespace

bool job_finished(const Json& job) {
  return condition_status(job, "Complete") == kube::ConditionStatus::True ||
         condition_status(job, "Failed") == kube::ConditionStatus::True;
}

Json job_pod(const Json& job) {
  const Json& tmpl = at_path(job, {"spec", "template"});
  const std::string name = string_at(job, {"metadata", "name"});
  const std::string uid = string_at(job, {"metadata", "uid"});
  Json labels = at_path(tmpl, {"metadata", "labels"});
  if (!labels.is_object()) labels = Json::object();
  labels["batch.kubernetes.io/controller-uid"] = uid;
  labels["batch.kubernetes.io/job-name"] = name;
  labels["controller-uid"] = uid;
  labels["job-name"] = name;
  Json annotations = at_path(tmpl, {"metadata", "annotations"});
  if (!annotations.is_object()) annotations = Json::object();
  annotations["batch.kubernetes.io/job-tracking"] = "";
  if (!annotations.contains(kRunSecondsAnnotation))
    annotations[kRunSecondsAnnotation] = kJobPodRunSeconds;
  Json spec = at_path(tmpl, {"spec"});
  if (!spec.is_object()) spec = Json::object();
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"generateName", name + "-"},
            {"namespace", string_at(job, {"metadata", "namespace"})},
            {"labels", labels},
            {"annotations", annotations},
            {"finalizers", Json::array({kJobTrackingFinalizer})},
            {"ownerReferences", Json::array({{{"apiVersion", "batch/v1"},
                                              {"kind", "Job"},
                                              {"name", name},
                                              {"uid", uid},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}})}}},
          {"spec", spec}};
}

JobPlan plan_job(const Json& job, const std::vector<const Json*>& pods, TimePoint now) {
  JobPlan plan;
  Json out = job;  // conditions are set on the whole object; the status is taken at the end
  Json& status = out["status"];
  if (!status.is_object()) status = Json::object();
  const bool finished = job_finished(job);
  std::map<std::string, const Json*> by_uid;
  for (const Json* p : pods)
    by_uid[string_at(*p, {"metadata", "uid"})] = p;

  // Pods listed as uncounted whose finalizer is gone are counted now.
  int succeeded = job_int_field(status, {"succeeded"}, 0);
  int failed = job_int_field(status, {"failed"}, 0);
  std::vector<std::string> uncounted_ok = uid_list(status, "succeeded");
  std::vector<std::string> uncounted_failed = uid_list(status, "failed");
  auto settle = [&](std::vector<std::string>& list, int& count) {
    std::erase_if(list, [&](const std::string& uid) {
      auto it = by_uid.find(uid);
      if (it != by_uid.end() && tracked(*it->second)) return false;
      ++count;
      return true;
    });
  };
  settle(uncounted_ok, succeeded);
  settle(uncounted_failed, failed);
  auto listed = [&](const std::string& uid) {
    return std::find(uncounted_ok.begin(), uncounted_ok.end(), uid) != uncounted_ok.end() ||
           std::find(uncounted_failed.begin(), uncounted_failed.end(), uid) !=
               uncounted_failed.end();
  };

  std::vector<const Json*> active;
  std::optional<TimePoint> last_failure;
  int ready = 0, terminating = 0;
  for (const Json* p : pods) {
    const std::string uid = string_at(*p, {"metadata", "uid"});
    const std::string name = string_at(*p, {"metadata", "name"});
    const bool ended = pod_terminal(*p) || job_pod_deleting(*p);
    if (phase(*p) == "Failed" || (job_pod_deleting(*p) && phase(*p) != "Succeeded")) {
      auto t = ended_at(*p);
      if (t && (!last_failure || *t > *last_failure)) last_failure = t;
    }
    if (!ended) {
      active.push_back(p);
      if (condition_status(*p, "Ready") == kube::ConditionStatus::True) ++ready;
    } else if (!pod_terminal(*p)) {
      ++terminating;
    }
    if (!tracked(*p)) continue;
    if (listed(uid)) {
      plan.release.push_back(name);
    } else if (ended && finished) {
      plan.release.push_back(name);  // the Job is over: nothing is counted any more
    } else if (phase(*p) == "Succeeded") {
      uncounted_ok.push_back(uid);
      plan.release.push_back(name);
    } else if (ended) {
      uncounted_failed.push_back(uid);
      plan.release.push_back(name);
    }
  }
  const bool settled = uncounted_ok.empty() && uncounted_failed.empty();
  const int succeeded_total = succeeded + static_cast<int>(uncounted_ok.size());
  const int failed_total = failed + static_cast<int>(uncounted_failed.size());

  if (!finished) {
    const bool suspended = at_path(job, {"spec", "suspend"}).is_boolean() &&
                           at_path(job, {"spec", "suspend"}).get<bool>();
    const int completions = job_int_field(job, {"spec", "completions"}, 1);
    const int parallelism = job_int_field(job, {"spec", "parallelism"}, 1);
    const int backoff_limit = job_int_field(job, {"spec", "backoffLimit"}, 6);
    if (!status.contains("startTime") && !suspended) status["startTime"] = kube::format_time(now);
    auto remove_active = [&] {
      for (const Json* p : active)
        plan.remove.push_back(string_at(*p, {"metadata", "name"}));
    };
    if (failed_total > backoff_limit) {
      remove_active();
      if (settled)
        finish(out, "FailureTarget", "Failed", "BackoffLimitExceeded",
               "Job has reached the specified backoff limit", now);
    } else if (succeeded_total >= completions) {
      remove_active();
      if (settled) {
        finish(out, "SuccessCriteriaMet", "Complete", "CompletionsReached",
               "Reached expected number of succeeded pods", now);
        status["completionTime"] = kube::format_time(now);
      }
    } else if (suspended) {
      remove_active();
    } else {
      const int want =
          std::min(parallelism, completions - succeeded_total) - static_cast<int>(active.size());
      if (want > 0 && failed_total > 0 && last_failure) {
        const int doublings = std::min(failed_total - 1, 6);
        auto delay = std::min<std::chrono::system_clock::duration>(
            std::chrono::seconds(10) * (1 << doublings), std::chrono::minutes(6));
        if (now < *last_failure + delay) {
          plan.recheck = *last_failure + delay - now;
        } else {
          plan.create = want;
        }
      } else if (want > 0) {
        plan.create = want;
      }
    }
  }

  if (active.empty()) {
    status.erase("active");
  } else {
    status["active"] = static_cast<int>(active.size());
  }
  status["ready"] = ready;
  status["terminating"] = terminating;
  auto set_count = [&](const char* key, int value) {
    if (value == 0) {
      status.erase(key);
    } else {
      status[key] = value;
    }
  };
  set_count("succeeded", succeeded);
  set_count("failed", failed);
  status["uncountedTerminatedPods"] = Json::object();
  if (!uncounted_ok.empty()) status["uncountedTerminatedPods"]["succeeded"] = uncounted_ok;
  if (!uncounted_failed.empty()) status["uncountedTerminatedPods"]["failed"] = uncounted_failed;
  plan.status = std::move(status);
  return plan;
}

}  // namespace respool::sandbox::sim
