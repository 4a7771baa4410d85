#pragma once
// The CronJob controller's decisions (pkg/controller/cronjob, ControllerV2), pure, on the
// injected clock.
//
// - status.active follows the Jobs the CronJob controls: finished ones leave it (Complete ones
//   set lastSuccessfulTime), missing ones too (MissingJob).
// - At the most recent unmet schedule time (cron_schedule.hpp; after lastScheduleTime, or the
//   creation time, and within startingDeadlineSeconds) a Job "<name>-<minutes since epoch>" is
//   made from jobTemplate, with the batch.kubernetes.io/cronjob-scheduled-timestamp annotation
//   and a controller reference; lastScheduleTime records it. concurrencyPolicy Forbid skips a
//   time while a Job is active (JobAlreadyActive), Replace deletes the active ones first. More
//   than 100 missed times start the latest only (TooManyMissedTimes). spec.suspend stops it.
// - Finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit are deleted, the
//   earliest started first.
// - spec.timeZone: UTC only (Etc/UTC, UTC or unset); another zone is reported as the real
//   controller reports an unknown one (UnknownTimeZone) and nothing is scheduled.
// The controller looks again 100 ms after the next schedule time, as the real one does.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/simulator/deployment_plan.hpp"

namespace respool::sandbox::sim {

struct CronJobPlan {
  std::vector<std::string> remove;       // Jobs to delete (Replace, history limits), first
  std::optional<nlohmann::json> create;  // the Job to create, then
  // The status to write; with `create`, lastScheduleTime is set and the created Job is to be
  // appended to status.active (job_reference).
  nlohmann::json status;
  std::vector<ControllerEvent> events;
  std::chrono::system_clock::duration recheck{};  // > 0: at the next schedule time
};

// `jobs`: the Jobs the CronJob controls.
CronJobPlan plan_cronjob(const nlohmann::json& cronjob,
                         const std::vector<const nlohmann::json*>& jobs,
                         std::chrono::system_clock::time_point now);

// The Job the CronJob makes for `scheduled` (getJobFromTemplate2).
nlohmann::json cronjob_job(const nlohmann::json& cronjob,
                           std::chrono::system_clock::time_point scheduled);

// status.active entry for a Job (an ObjectReference).
nlohmann::json job_reference(const nlohmann::json& job);

}  // namespace respool::sandbox::sim
