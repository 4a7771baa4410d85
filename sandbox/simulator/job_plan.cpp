#include "sandbox/simulator/job_plan.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/conditions.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/job_indexes.hpp"
#include "sandbox/simulator/job_pod_state.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {

bool job_finished(const nlohmann::json& job) {
  return job_state::condition_true(job, "Complete") || job_state::condition_true(job, "Failed");
}

JobPlan plan_job(const nlohmann::json& job, const std::vector<const nlohmann::json*>& pods,
                 std::chrono::system_clock::time_point now) {
  using namespace job_state;  // here only: a unity batch must not see it
  JobPlan plan;
  Json out = job;  // conditions are set on the whole object; the status is taken at the end
  Json& status = out["status"];
  if (!status.is_object()) status = Json::object();
  const JobSpec spec = read_spec(job);
  const int completions = spec.completions.value_or(0);
  const bool finished = job_finished(job);
  std::map<std::string, const Json*> by_uid;
  for (const Json* p : pods)
    by_uid[string_at(*p, {"metadata", "uid"})] = p;

  // Pods listed as uncounted whose finalizer is gone are counted now.
  int succeeded = int_at(status, {"succeeded"}, 0);
  int failed = int_at(status, {"failed"}, 0);
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
  std::set<int> completed;
  if (spec.indexed) completed = parse_indexes(string_at(status, {"completedIndexes"}), completions);

  std::vector<const Json*> active;
  std::set<int> terminating_indexes;
  std::optional<TimePoint> last_failure;
  int ready = 0, terminating = 0, restarts = 0;
  for (const Json* p : pods) {
    const std::string uid = string_at(*p, {"metadata", "uid"});
    const bool terminal = pod_terminal(*p);
    const bool failed_now = counts_failed(*p, spec);
    const auto index = spec.indexed ? completion_index(*p, completions) : std::nullopt;
    restarts += container_restarts(*p);
    if (failed_now) {
      auto t = ended_at(*p);
      if (t && (!last_failure || *t > *last_failure)) last_failure = t;
    }
    if (!terminal && !deleting(*p)) {
      active.push_back(p);
      if (condition_true(*p, "Ready")) ++ready;
    } else if (!terminal) {
      ++terminating;
      if (index) terminating_indexes.insert(*index);
    }
    if (!tracked(*p)) continue;
    if (listed(uid)) {
      plan.release.push_back(name_of(p));
    } else if (phase(*p) == "Succeeded") {
      if (spec.indexed && index) {
        completed.insert(*index);  // the index is enough not to count it twice
      } else if (!spec.indexed) {
        uncounted_ok.push_back(uid);
      }
      plan.release.push_back(name_of(p));
    } else if (failed_now) {
      if (!finished && (!spec.indexed || index)) uncounted_failed.push_back(uid);
      plan.release.push_back(name_of(p));
    } else if (finished && deleting(*p)) {
      plan.release.push_back(name_of(p));  // the Job is over: nothing is counted any more
    }
  }
  const bool settled = uncounted_ok.empty() && uncounted_failed.empty();
  const int succeeded_total = spec.indexed ? static_cast<int>(completed.size())
                                           : succeeded + static_cast<int>(uncounted_ok.size());
  const int failed_total = failed + static_cast<int>(uncounted_failed.size());
  int active_count = static_cast<int>(active.size());

  auto remove_all = [&](std::vector<std::string>& into) {
    for (const Json* p : active)
      into.push_back(name_of(p));
    terminating += active_count;
    active_count = 0;
    ready = 0;
  };
  auto complete = [&] {
    set_condition(out,
                  {"SuccessCriteriaMet", "True", "CompletionsReached",
                   "Reached expected number of succeeded pods"},
                  now, ConditionStyle::Plain);
    if (settled && terminating == 0) {
      set_condition(
          out,
          {"Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods"},
          now, ConditionStyle::Plain);
      status["completionTime"] = apimachinery::format_time(now);
    }
  };

  if (!finished) {
    if (!status.contains("startTime") && !spec.suspended)
      status["startTime"] = apimachinery::format_time(now);
    const bool past_backoff_on_failure =
        spec.on_failure &&
        (spec.backoff_limit == 0 ? restarts > 0 : restarts >= spec.backoff_limit);
    if (condition_true(job, "SuccessCriteriaMet")) {
      remove_all(plan.remove);
      complete();
    } else if (condition_true(job, "FailureTarget") || failed_total > spec.backoff_limit ||
               past_backoff_on_failure) {
      if (!condition_true(job, "FailureTarget"))
        set_condition(out,
                      {"FailureTarget", "True", "BackoffLimitExceeded",
                       "Job has reached the specified backoff limit"},
                      now, ConditionStyle::Plain);
      remove_all(plan.remove);
      if (settled && terminating == 0) {
        const Json* target = find_condition(out, "FailureTarget");
        set_condition(out,
                      {"Failed", "True", target->value("reason", std::string()),
                       target->value("message", std::string())},
                      now, ConditionStyle::Plain);
      }
    } else {
      if (spec.suspended) {
        remove_all(plan.release_and_remove);
      } else {
        int want = 0;
        if (spec.completions) {
          want = std::max(0, std::min(spec.parallelism, completions - succeeded_total));
        } else {
          want = succeeded_total > 0 ? active_count : spec.parallelism;
        }
        std::vector<const Json*> extra = surplus(active, spec, want);
        if (!extra.empty()) {
          for (const Json* p : extra) {
            plan.release_and_remove.push_back(name_of(p));
            if (condition_true(*p, "Ready")) --ready;
          }
          active_count -= static_cast<int>(extra.size());
          terminating += static_cast<int>(extra.size());
        } else if (int diff = want - (spec.only_failed ? terminating : 0) - active_count;
                   diff > 0) {
          std::optional<TimePoint> retry_at;
          if (failed_total > 0 && last_failure) {
            const int doublings = std::min(failed_total - 1, 10);
            retry_at = *last_failure +
                       std::min<std::chrono::system_clock::duration>(
                           std::chrono::seconds(10) * (1 << doublings), std::chrono::minutes(10));
          }
          if (retry_at && now < *retry_at) {
            plan.recheck = *retry_at - now;
          } else if (spec.indexed) {
            std::set<int> taken = completed;
            for (const Json* p : active)
              if (auto ix = completion_index(*p, completions)) taken.insert(*ix);
            if (spec.only_failed)
              taken.insert(terminating_indexes.begin(), terminating_indexes.end());
            for (int ix : first_pending_indexes(taken, diff, completions))
              plan.create_indexes.push_back(ix);
            active_count += static_cast<int>(plan.create_indexes.size());
          } else {
            plan.create = diff;
            active_count += diff;
          }
        }
      }
      const bool done = spec.completions ? succeeded_total >= completions && active_count == 0
                                         : succeeded_total > 0 && active_count == 0;
      if (done) {
        complete();
      } else if (spec.suspended) {
        set_condition(out, {"Suspended", "True", "JobSuspended", "Job suspended"}, now,
                      ConditionStyle::Plain);
      } else if (find_condition(out, "Suspended") &&
                 set_condition(out, {"Suspended", "False", "JobResumed", "Job resumed"}, now,
                               ConditionStyle::Plain)) {
        // Resuming starts the Job's time anew (activeDeadlineSeconds counts active time).
        status["startTime"] = apimachinery::format_time(now);
      }
    }
  }

  if (active_count == 0) {
    status.erase("active");
  } else {
    status["active"] = active_count;
  }
  status["ready"] = std::max(ready, 0);
  status["terminating"] = terminating;
  auto set_count = [&](const char* key, int value) {
    if (value == 0) {
      status.erase(key);
    } else {
      status[key] = value;
    }
  };
  if (spec.indexed) {
    set_count("succeeded", static_cast<int>(completed.size()));
    const std::string text = format_indexes(completed);
    if (text.empty()) {
      status.erase("completedIndexes");
    } else {
      status["completedIndexes"] = text;
    }
  } else {
    set_count("succeeded", succeeded);
  }
  set_count("failed", failed);
  status["uncountedTerminatedPods"] = Json::object();
  if (!uncounted_ok.empty()) status["uncountedTerminatedPods"]["succeeded"] = uncounted_ok;
  if (!uncounted_failed.empty()) status["uncountedTerminatedPods"]["failed"] = uncounted_failed;
  plan.status = std::move(status);
  return plan;
}

}  // namespace respool::sandbox::sim
