// Printers of batch/v1 kinds.

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/printers/printers.hpp"
#include "sandbox/apiserver/printers/tables.hpp"

namespace respool::sandbox::printers {
namespace {

std::string job_run_time(const Json& o, runtime::TimePoint now) {
  const Json& start = at(o, {"status", "startTime"});
  if (!start.is_string()) return "";
  const Json& done = at(o, {"status", "completionTime"});
  auto s = apimachinery::parse_time(start.get<std::string>());
  auto d = done.is_string() ? apimachinery::parse_time(done.get<std::string>()) : std::nullopt;
  if (!s) return "";
  return human_duration(std::chrono::duration_cast<std::chrono::seconds>((d ? *d : now) - *s));
}

}  // namespace

const PrinterDef cron_job{
    {{"Schedule", "string", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."},
     {"Timezone", "string",
      "The time zone name for the given schedule, see "
      "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones."},
     {"Suspend", "boolean",
      "This flag tells the controller to suspend subsequent executions, it "
      "does not apply to already started executions.  Defaults to false."},
     {"Active", "integer", "A list of pointers to currently running jobs."},
     {"Last Schedule", "string",
      "Information when was the last time the job was successfully "
      "scheduled."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string", "A label query over pods that should match the pod count.", 1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& job = at(o, {"spec", "jobTemplate", "spec"});
      const Json& spec = at(job, {"template", "spec"});
      const Json& last = at(o, {"status", "lastScheduleTime"});
      const Json& active = at(o, {"status", "active"});
      const Json& suspend = at(o, {"spec", "suspend"});
      return {name_of(o),
              text(at(o, {"spec", "schedule"})),
              text(at(o, {"spec", "timeZone"}), "<none>"),
              suspend.is_boolean() ? OJson(suspend.get<bool>()) : OJson("<unset>"),
              active.is_array() ? active.size() : 0,
              last.is_string() ? since(last, now) : "<none>",
              age(o, now),
              container_names(spec),
              container_images(spec),
              format_selector(at(job, {"selector"}))};
    }};

const PrinterDef job{
    {{"Status", "string", "Status of the job."},
     {"Completions", "string", "The number of pods which reached phase Succeeded."},
     {"Duration", "string", "Time required to complete the job."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string", "A label query over pods that should match the pod count.", 1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string status = condition_status(o, "Complete") == "True"             ? "Complete"
                           : condition_status(o, "Failed") == "True"             ? "Failed"
                           : !at(o, {"metadata", "deletionTimestamp"}).is_null() ? "Terminating"
                           : condition_status(o, "Suspended") == "True"          ? "Suspended"
                           : condition_status(o, "FailureTarget") == "True"      ? "FailureTarget"
                                                                                 : "Running";
      long long succeeded = number(at(o, {"status", "succeeded"}));
      const Json& completions = at(o, {"spec", "completions"});
      long long parallelism = number(at(o, {"spec", "parallelism"}));
      std::string done = std::to_string(succeeded) + "/";
      if (completions.is_number_integer()) {
        done += std::to_string(completions.get<long long>());
      } else {
        done += parallelism > 1 ? std::string("1 of ") + std::to_string(parallelism) : "1";
      }
      return {name_of(o),
              status,
              done,
              job_run_time(o, now),
              age(o, now),
              container_names(template_pod_spec(o)),
              container_images(template_pod_spec(o)),
              format_selector(at(o, {"spec", "selector"}))};
    }};

}  // namespace respool::sandbox::printers
