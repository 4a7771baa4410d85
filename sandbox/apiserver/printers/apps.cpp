// Printers of apps, batch, autoscaling, policy and coordination kinds.

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/printers/printers.hpp"
#include "sandbox/apiserver/printers/tables.hpp"

namespace respool::sandbox::printers {
namespace {

const Json& template_pod_spec(const Json& o) {
  return at(o, {"spec", "template", "spec"});
}

std::string hpa_targets(const Json& o) {
  const Json& specs = at(o, {"spec", "metrics"});
  const Json& statuses = at(o, {"status", "currentMetrics"});
  if (!specs.is_array() || specs.empty()) return "<none>";
  std::vector<std::string> list;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const Json& s = specs[i];
    const Json& st = statuses.is_array() && i < statuses.size() ? statuses[i] : Json();
    std::string type = text(at(s, {"type"}));
    std::string key = type == "Resource"            ? "resource"
                      : type == "ContainerResource" ? "containerResource"
                      : type == "Pods"              ? "pods"
                      : type == "Object"            ? "object"
                      : type == "External"          ? "external"
                                                    : "";
    if (key.empty()) {
      list.push_back("<unknown type>");
      continue;
    }
    const Json& target = at(s, {key.c_str(), "target"});
    const Json& current = at(st, {key.c_str(), "current"});
    std::string prefix = key == "resource" || key == "containerResource"
                             ? text(at(s, {key.c_str(), "name"})) + ": "
                             : "";
    if (!at(target, {"averageValue"}).is_null() || key == "pods") {
      std::string cur = int_or_string(at(current, {"averageValue"}), "<unknown>");
      std::string suffix = key == "object" || key == "external" ? " (avg)" : "";
      list.push_back(prefix + cur + "/" + int_or_string(at(target, {"averageValue"}), "<unknown>") +
                     suffix);
    } else if (key == "object" || key == "external") {
      list.push_back(int_or_string(at(current, {"value"}), "<unknown>") + "/" +
                     int_or_string(at(target, {"value"}), "<unknown>"));
    } else {
      const Json& cu = at(current, {"averageUtilization"});
      const Json& tu = at(target, {"averageUtilization"});
      std::string cur =
          cu.is_number_integer() ? std::to_string(cu.get<long long>()) + "%" : "<unknown>";
      std::string tgt =
          tu.is_number_integer() ? std::to_string(tu.get<long long>()) + "%" : "<auto>";
      list.push_back(prefix + cur + "/" + tgt);
    }
  }
  std::size_t max = 2;
  std::size_t count = list.size();
  if (count > max) list.resize(max);
  std::string out = join(list, ", ");
  if (count > max) out += std::string(" + ") + std::to_string(count - max) + " more...";
  return out;
}

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

const PrinterDef controller_revision{
    {{"Controller", "string", "Controller of the object"},
     {"Revision", "string", "Revision indicates the revision of the state represented by Data."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      std::string controller = "<none>";
      const Json& refs = at(o, {"metadata", "ownerReferences"});
      if (refs.is_array()) {
        for (const Json& r : refs) {
          if (at(r, {"controller"}) != true) continue;
          std::string api = text(at(r, {"apiVersion"}));
          auto slash = api.find('/');
          std::string group = slash == std::string::npos ? "" : api.substr(0, slash);
          std::string kind = text(at(r, {"kind"}));
          std::string gk = group.empty() ? kind : kind + "." + group;
          for (auto& c : gk)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          controller = gk + std::string("/") + text(at(r, {"name"}));
          break;
        }
      }
      return {name_of(o), controller, number(at(o, {"revision"})), age(o, now)};
    }};

const PrinterDef daemon_set{
    {{"Desired", "integer",
      "The total number of nodes that should be running the daemon pod (including nodes "
      "correctly running the daemon pod)."},
     {"Current", "integer",
      "The number of nodes that are running at least 1 daemon pod and are supposed to run the "
      "daemon pod."},
     {"Ready", "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the "
      "daemon pod running with a Ready Condition."},
     {"Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"},
     {"Available", "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the "
      "daemon pod running and available (ready for at least spec.minReadySeconds)"},
     {"Node Selector", "string",
      "NodeSelector is a selector which must be true for the pod to fit on a node."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string", "A label query over pods that are managed by the daemon set.", 1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o),
              number(at(o, {"status", "desiredNumberScheduled"})),
              number(at(o, {"status", "currentNumberScheduled"})),
              number(at(o, {"status", "numberReady"})),
              number(at(o, {"status", "updatedNumberScheduled"})),
              number(at(o, {"status", "numberAvailable"})),
              format_labels(at(template_pod_spec(o), {"nodeSelector"})),
              age(o, now),
              container_names(template_pod_spec(o)),
              container_images(template_pod_spec(o)),
              format_selector(at(o, {"spec", "selector"}))};
    }};

const PrinterDef deployment{
    {{"Ready", "string", "Number of the pod with ready state"},
     {"Up-to-date", "string",
      "Total number of non-terminated pods targeted by this deployment that have the desired "
      "template spec."},
     {"Available", "string",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this "
      "deployment."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string",
      "Label selector for pods. Existing ReplicaSets whose pods are "
      "selected by this will be the ones affected by this deployment.",
      1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o),
              std::to_string(number(at(o, {"status", "readyReplicas"}))) + "/" +
                  std::to_string(number(at(o, {"spec", "replicas"}))),
              number(at(o, {"status", "updatedReplicas"})),
              number(at(o, {"status", "availableReplicas"})),
              age(o, now),
              container_names(template_pod_spec(o)),
              container_images(template_pod_spec(o)),
              format_selector(at(o, {"spec", "selector"}))};
    }};

const PrinterDef replica_set{
    {{"Desired", "integer",
      "Replicas is the number of desired replicas. This is a pointer to distinguish between "
      "explicit zero and unspecified. Defaults to 1. More info: "
      "https://kubernetes.io/docs/concepts/workloads/controllers/"
      "replicationcontroller/#what-is-a-replicationcontroller"},
     {"Current", "integer",
      "Replicas is the most recently observed number of replicas. More "
      "info: https://kubernetes.io/docs/concepts/workloads/controllers/"
      "replicationcontroller/#what-is-a-replicationcontroller"},
     {"Ready", "integer", "The number of ready replicas for this replica set."},
     {"Age", "string", kAgeDesc},
     {"Containers", "string", kContainersDesc, 1},
     {"Images", "string", kImagesDesc, 1},
     {"Selector", "string",
      "Selector is a label query over pods that should match the replica count. If the selector "
      "is empty, it is defaulted to the labels present on the pod template. Label keys and "
      "values that must match in order to be controlled by this replica set. More info: "
      "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      1}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o),
              number(at(o, {"spec", "replicas"})),
              number(at(o, {"status", "replicas"})),
              number(at(o, {"status", "readyReplicas"})),
              age(o, now),
              container_names(template_pod_spec(o)),
              container_images(template_pod_spec(o)),
              format_selector(at(o, {"spec", "selector"}))};
    }};

const PrinterDef stateful_set{{{"Ready", "string", "Number of the pod with ready state"},
                               {"Age", "string", kAgeDesc},
                               {"Containers", "string", kContainersDesc, 1},
                               {"Images", "string", kImagesDesc, 1}},
                              [](const Json& o, runtime::TimePoint now) -> OJson {
                                return {name_of(o),
                                        std::to_string(number(at(o, {"status", "readyReplicas"}))) +
                                            "/" +
                                            std::to_string(number(at(o, {"spec", "replicas"}))),
                                        age(o, now), container_names(template_pod_spec(o)),
                                        container_images(template_pod_spec(o))};
                              }};

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

const PrinterDef horizontal_pod_autoscaler{
    {{"Reference", "string",
      "reference to scaled resource; horizontal pod autoscaler will learn "
      "the current resource consumption and will set the desired number "
      "of pods by using its Scale subresource."},
     {"Targets", "string",
      "metrics contains the specifications for which to use to calculate "
      "the desired replica count."},
     {"MinPods", "string",
      "minReplicas is the lower limit for the number of replicas to which "
      "the autoscaler can scale down."},
     {"MaxPods", "string",
      "maxReplicas is the upper limit for the number of replicas to which "
      "the autoscaler can scale up."},
     {"Replicas", "string",
      "currentReplicas is current number of replicas of pods managed by "
      "this autoscaler, as last seen by the autoscaler."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      const Json& min = at(o, {"spec", "minReplicas"});
      return {name_of(o),
              text(at(o, {"spec", "scaleTargetRef", "kind"})) + "/" +
                  text(at(o, {"spec", "scaleTargetRef", "name"})),
              hpa_targets(o),
              min.is_number_integer() ? std::to_string(min.get<long long>()) : "<unset>",
              number(at(o, {"spec", "maxReplicas"})),
              number(at(o, {"status", "currentReplicas"})),
              age(o, now)};
    }};

const PrinterDef pod_disruption_budget{
    {{"Min Available", "string", "The minimum number of pods that must be available."},
     {"Max Unavailable", "string", "The maximum number of pods that may be unavailable."},
     {"Allowed Disruptions", "integer",
      "Calculated number of pods that may be disrupted at this time."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), int_or_string(at(o, {"spec", "minAvailable"})),
              int_or_string(at(o, {"spec", "maxUnavailable"})),
              number(at(o, {"status", "disruptionsAllowed"})), age(o, now)};
    }};

const PrinterDef lease{
    {{"Holder", "string", "HolderIdentity contains the identity of the holder of a current lease."},
     {"Age", "string", kAgeDesc}},
    [](const Json& o, runtime::TimePoint now) -> OJson {
      return {name_of(o), text(at(o, {"spec", "holderIdentity"})), age(o, now)};
    }};

}  // namespace respool::sandbox::printers
