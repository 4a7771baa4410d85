#include "sandbox/simulator/cronjob_plan.hpp"

#include <algorithm>
#include <ctime>
#include <set>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/cron_schedule.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

constexpr auto kNextScheduleDelta = std::chrono::milliseconds(100);

// Complete or Failed, "" while the Job runs.
std::string finished_as(const Json& job) {
  for (const char* type : {"Complete", "Failed"})
    if (condition_status(job, type) == kube::ConditionStatus::True) return type;
  return {};
}

// Mon, 02 Jan 2006 15:04:05 -0700
std::string rfc1123z(TimePoint t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

struct MostRecent {
  TimePoint earliest;
  std::optional<TimePoint> time;
  long long missed = 0;
  std::string error;
};

// mostRecentScheduleTime
MostRecent most_recent(const Json& cj, TimePoint now, const CronSchedule& schedule,
                       bool with_deadline) {
  MostRecent out;
  out.earliest = time_at(cj, {"metadata", "creationTimestamp"}).value_or(now);
  if (auto last = time_at(cj, {"status", "lastScheduleTime"})) out.earliest = *last;
  const Json& deadline = at_path(cj, {"spec", "startingDeadlineSeconds"});
  if (with_deadline && deadline.is_number_integer()) {
    const auto bound = now - std::chrono::seconds(deadline.get<std::int64_t>());
    if (bound > out.earliest) out.earliest = bound;
  }
  auto t1 = schedule.next(out.earliest);
  if (!t1 || now < *t1) return out;
  auto t2 = schedule.next(*t1);
  if (!t2 || now < *t2) {
    out.time = t1;
    return out;
  }
  const auto between = std::chrono::duration_cast<std::chrono::seconds>(*t2 - *t1).count();
  if (between < 1) {
    out.error = "time difference between two schedules is less than 1 second";
    return out;
  }
  const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - *t1).count();
  out.missed = elapsed / between + 1;
  // Close to now by the interval, then exactly by the schedule.
  auto t = schedule.next(*t1 + std::chrono::seconds((out.missed - 2) * between));
  for (; t && *t <= now; t = schedule.next(*t))
    out.time = t;
  return out;
}

std::chrono::system_clock::duration until_next(const Json& cj, TimePoint now,
                                               const CronSchedule& schedule) {
  MostRecent recent = most_recent(cj, now, schedule, false);
  if (!recent.error.empty()) return {};
  auto next = schedule.next(recent.time.value_or(recent.earliest));
  if (!next) return {};
  return std::max<std::chrono::system_clock::duration>(*next + kNextScheduleDelta - now,
                                                       kNextScheduleDelta);
}

}  // namespace

Json job_reference(const Json& job) {
  return {{"kind", "Job"},
          {"namespace", namespace_of(job)},
          {"name", name_of(job)},
          {"uid", uid_of(job)},
          {"apiVersion", "batch/v1"},
          {"resourceVersion", string_at(job, {"metadata", "resourceVersion"})}};
}

Json cronjob_job(const Json& cj, TimePoint scheduled) {
  const Json& tmpl = at_path(cj, {"spec", "jobTemplate"});
  const auto minutes =
      std::chrono::duration_cast<std::chrono::seconds>(scheduled.time_since_epoch()).count() / 60;
  Json metadata = {
      {"name", name_of(cj) + "-" + std::to_string(minutes)},
      {"namespace", namespace_of(cj)},
      {"ownerReferences", Json::array({controller_reference(cj, "batch/v1", "CronJob")})}};
  Json labels = at_path(tmpl, {"metadata", "labels"});
  if (labels.is_object() && !labels.empty()) metadata["labels"] = labels;
  Json annotations = at_path(tmpl, {"metadata", "annotations"});
  if (!annotations.is_object()) annotations = Json::object();
  annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] =
      apimachinery::format_time(scheduled);
  metadata["annotations"] = annotations;
  Json spec = at_path(tmpl, {"spec"});
  if (!spec.is_object()) spec = Json::object();
  return {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", metadata}, {"spec", spec}};
}

CronJobPlan plan_cronjob(const Json& cj, const std::vector<const Json*>& jobs, TimePoint now) {
  CronJobPlan plan;
  Json status = at_path(cj, {"status"});
  if (!status.is_object()) status = Json::object();
  Json active = status.value("active", Json::array());
  if (!active.is_array()) active = Json::array();
  auto in_active = [&](const std::string& uid) {
    return std::any_of(active.begin(), active.end(),
                       [&](const Json& r) { return r.value("uid", "") == uid; });
  };
  auto drop_active = [&](const std::string& uid) {
    Json kept = Json::array();
    for (const auto& r : active)
      if (r.value("uid", "") != uid) kept.push_back(r);
    active = std::move(kept);
  };
  std::set<std::string> children;
  for (const Json* job : jobs) {
    const std::string uid = uid_of(*job);
    children.insert(uid);
    const std::string finished = finished_as(*job);
    if (!in_active(uid) && finished.empty()) {
      plan.events.push_back(
          {"Warning", "UnexpectedJob",
           "Saw a job that the controller did not create or forgot: " + name_of(*job)});
    } else if (in_active(uid) && !finished.empty()) {
      drop_active(uid);
      plan.events.push_back({"Normal", "SawCompletedJob",
                             "Saw completed job: " + name_of(*job) + ", condition: " + finished});
    } else if (!finished.empty()) {
      auto completed = time_at(*job, {"status", "completionTime"});
      auto last = time_at(status, {"lastSuccessfulTime"});
      if (completed && (!last || *completed > *last))
        status["lastSuccessfulTime"] = apimachinery::format_time(*completed);
    }
  }
  for (const auto& ref : Json(active)) {
    if (children.contains(ref.value("uid", ""))) continue;
    plan.events.push_back(
        {"Normal", "MissingJob", "Active job went missing: " + ref.value("name", "")});
    drop_active(ref.value("uid", ""));
  }
  // History: finished Jobs beyond the limits, the earliest started first.
  auto prune = [&](const char* outcome, const char* limit_field) {
    const Json& limit = at_path(cj, {"spec", limit_field});
    if (!limit.is_number_integer()) return;
    std::vector<const Json*> done;
    for (const Json* job : jobs)
      if (finished_as(*job) == outcome) done.push_back(job);
    std::sort(done.begin(), done.end(), [](const Json* a, const Json* b) {
      auto ta = time_at(*a, {"status", "startTime"});
      auto tb = time_at(*b, {"status", "startTime"});
      if (ta.has_value() != tb.has_value()) return ta.has_value();
      if (ta && *ta != *tb) return *ta < *tb;
      return name_of(*a) < name_of(*b);
    });
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(done.size()) - limit.get<std::int64_t>();
         ++i) {
      const Json& job = *done[static_cast<std::size_t>(i)];
      plan.remove.push_back(name_of(job));
      drop_active(uid_of(job));
      plan.events.push_back({"Normal", "SuccessfulDelete", "Deleted job " + name_of(job)});
    }
  };

  prune("Complete", "successfulJobsHistoryLimit");
  prune("Failed", "failedJobsHistoryLimit");
  auto finish = [&] {
    if (active.empty()) {
      status.erase("active");
    } else {
      status["active"] = active;
    }
    plan.status = status;
    return std::move(plan);
  };

  if (marked_for_deletion(cj)) return finish();
  const std::string zone = string_at(cj, {"spec", "timeZone"});
  if (!zone.empty() && zone != "UTC" && zone != "Etc/UTC") {
    plan.events.push_back({"Warning", "UnknownTimeZone",
                           "invalid timeZone: \"" + zone + "\": unknown time zone " + zone +
                               " (the sandbox plays UTC only)"});
    return finish();
  }
  const std::string spec = string_at(cj, {"spec", "schedule"});
  auto schedule = CronSchedule::parse(spec);
  if (!schedule) {
    plan.events.push_back({"Warning", "UnparseableSchedule",
                           "unparseable schedule: \"" + spec + "\" : " + schedule.error()});
    return finish();
  }
  const Json& suspend = at_path(cj, {"spec", "suspend"});
  if (suspend.is_boolean() && suspend.get<bool>()) return finish();

  MostRecent recent = most_recent(cj, now, *schedule, true);
  if (!recent.error.empty()) {
    plan.events.push_back(
        {"Warning", "InvalidSchedule", "invalid schedule: " + spec + " : " + recent.error});
    return finish();
  }
  if (recent.missed > 100)
    plan.events.push_back({"Warning", "TooManyMissedTimes",
                           "too many missed start times. Set or decrease "
                           ".spec.startingDeadlineSeconds or check clock skew"});
  plan.recheck = until_next(cj, now, *schedule);
  if (!recent.time) return finish();
  const TimePoint scheduled = *recent.time;
  const Json& deadline = at_path(cj, {"spec", "startingDeadlineSeconds"});
  if (deadline.is_number_integer() &&
      scheduled + std::chrono::seconds(deadline.get<std::int64_t>()) < now) {
    plan.events.push_back({"Warning", "MissSchedule",
                           "Missed scheduled time to start a job: " + rfc1123z(scheduled)});
    return finish();
  }
  Json job = cronjob_job(cj, scheduled);
  const bool done_already =
      std::any_of(active.begin(), active.end(),
                  [&](const Json& r) { return r.value("name", "") == name_of(job); }) ||
      time_at(status, {"lastScheduleTime"}) == scheduled;
  if (done_already) return finish();
  const std::string policy = string_at(cj, {"spec", "concurrencyPolicy"});
  if (policy == "Forbid" && !active.empty()) {
    plan.events.push_back({"Normal", "JobAlreadyActive",
                           "Not starting job because prior execution is running and concurrency "
                           "policy is Forbid"});
    return finish();
  }
  if (policy == "Replace") {
    for (const auto& ref : Json(active)) {
      plan.remove.push_back(ref.value("name", ""));
      plan.events.push_back({"Normal", "SuccessfulDelete", "Deleted job " + ref.value("name", "")});
    }
    active = Json::array();
  }
  plan.create = std::move(job);
  status["lastScheduleTime"] = apimachinery::format_time(scheduled);
  Json next = cj;
  next["status"]["lastScheduleTime"] = status["lastScheduleTime"];
  plan.recheck = until_next(next, now, *schedule);
  return finish();
}

}  // namespace respool::sandbox::sim
