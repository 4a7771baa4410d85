#include "sandbox/simulator/pod_status.hpp"

#include <cstdio>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/conditions.hpp"
#include "sandbox/simulator/failure_samples.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/template_hash.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

std::string container_id(const Json& pod, const std::string& container) {
  const std::string seed = string_at(pod, {"metadata", "uid"}) + "/" + container;
  char buf[65];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x%08x%08x%08x%08x", fnv1a32(seed + "1"),
                fnv1a32(seed + "2"), fnv1a32(seed + "3"), fnv1a32(seed + "4"), fnv1a32(seed + "5"),
                fnv1a32(seed + "6"), fnv1a32(seed + "7"), fnv1a32(seed + "8"));
  return std::string("containerd://") + buf;
}

std::string image_of(const Json& container) {
  std::string image = container.value("image", std::string());
  if (image.find('/') == std::string::npos) image = "docker.io/library/" + image;
  return image;
}

Json container_status(const Json& pod, const Json& container, const Json& state, bool running) {
  const std::string name = container.value("name", std::string());
  return {{"name", name},
          {"state", state},
          {"lastState", Json::object()},
          {"ready", running},
          {"restartCount", 0},
          {"image", image_of(container)},
          {"imageID", image_of(container) + "@sha256:" +
                          safe_encode(std::to_string(fnv1a32(container.value("image", ""))))},
          {"containerID", container_id(pod, name)},
          {"started", running}};
}

// The kubelet's reason for a container's end: Completed, Error, or the pod's failure sample's
// (OOMKilled) when it ends with that sample's code.
std::string end_reason(const Json& pod, int exit_code) {
  if (exit_code == 0) return "Completed";
  auto failure = annotation(pod, kFailureAnnotation);
  const FailureSample* sample = failure ? find_failure_sample(*failure) : nullptr;
  return sample && sample->exit_code == exit_code ? std::string(sample->reason) : "Error";
}

Json terminated(int exit_code, const std::string& started, const std::string& finished,
                const std::string& reason = "") {
  return {{"terminated",
           {{"exitCode", exit_code},
            {"reason", !reason.empty()  ? reason
                       : exit_code == 0 ? "Completed"
                                        : "Error"},
            {"startedAt", started},
            {"finishedAt", finished}}}};
}

Json init_statuses(const Json& pod, const std::string& t) {
  Json out = Json::array();
  const Json& inits = at_path(pod, {"spec", "initContainers"});
  if (!inits.is_array()) return out;
  for (const auto& c : inits) {
    if (!c.is_object()) continue;
    const bool sidecar = c.value("restartPolicy", std::string()) == "Always";
    Json state = sidecar ? Json{{"running", {{"startedAt", t}}}} : terminated(0, t, t);
    out.push_back(container_status(pod, c, state, sidecar));
  }
  return out;
}

}  // namespace

std::string pod_address(const Json& pod, const std::string& host_ip) {
  const Json& host_network = at_path(pod, {"spec", "hostNetwork"});
  if (host_network.is_boolean() && host_network.get<bool>()) return host_ip;
  const std::uint32_t h = fnv1a32(string_at(pod, {"metadata", "uid"}));
  return "10.244." + std::to_string((h >> 8) & 0xff) + "." + std::to_string(1 + (h & 0xff) % 254);
}

std::string qos_class(const Json& pod_spec) {
  bool any = false;
  bool guaranteed = true;
  const Json& containers = at_path(pod_spec, {"containers"});
  if (!containers.is_array()) return "BestEffort";
  for (const auto& c : containers) {
    const Json& requests = at_path(c, {"resources", "requests"});
    const Json& limits = at_path(c, {"resources", "limits"});
    if ((requests.is_object() && !requests.empty()) || (limits.is_object() && !limits.empty()))
      any = true;
    for (const char* r : {"cpu", "memory"}) {
      const Json& limit = at_path(limits, {r});
      const Json& request = at_path(requests, {r});
      if (limit.is_null() || (!request.is_null() && request != limit)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

Json running_status(const Json& pod, const std::string& host_ip,
                    std::chrono::system_clock::time_point now) {
  const std::string t = apimachinery::format_time(now);
  Json out = pod;
  Json& status = out["status"];
  if (!status.is_object()) status = Json::object();
  status["phase"] = "Running";
  for (const char* type :
       {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
    set_condition(out, {type, "True", "", ""}, now, ConditionStyle::Pod);
  }
  const std::string ip = pod_address(pod, host_ip);
  status["hostIP"] = host_ip;
  status["hostIPs"] = Json::array({{{"ip", host_ip}}});
  status["podIP"] = ip;
  status["podIPs"] = Json::array({{{"ip", ip}}});
  status["startTime"] = t;
  status["qosClass"] = qos_class(at_path(pod, {"spec"}));
  Json containers = Json::array();
  const Json& specs = at_path(pod, {"spec", "containers"});
  if (specs.is_array()) {
    for (const auto& c : specs)
      if (c.is_object())
        containers.push_back(container_status(pod, c, {{"running", {{"startedAt", t}}}}, true));
  }
  status["containerStatuses"] = containers;
  Json inits = init_statuses(pod, t);
  if (!inits.empty()) status["initContainerStatuses"] = inits;
  return status;
}

Json crash_looping_status(const Json& pod, const std::string& host_ip,
                          std::chrono::system_clock::time_point now) {
  Json out = pod;
  out["status"] = running_status(pod, host_ip, now);
  for (const char* type : {"Ready", "ContainersReady"}) {
    set_condition(out,
                  {type, "False", "ContainersNotReady", "containers with unready status: [driver]"},
                  now, ConditionStyle::Pod);
  }
  for (Json& c : out["status"]["containerStatuses"]) {
    c["ready"] = false;
    c["started"] = false;
    c["restartCount"] = 1;
    c["state"] = {
        {"waiting",
         {{"reason", "CrashLoopBackOff"},
          {"message", "back-off 10s restarting failed container=" + c.value("name", std::string()) +
                          " pod=" + string_at(pod, {"metadata", "name"})}}}};
    c["lastState"] = terminated(1, apimachinery::format_time(now), apimachinery::format_time(now));
  }
  return out["status"];
}

Json terminated_status(const Json& pod, int exit_code, std::chrono::system_clock::time_point now) {
  const std::string t = apimachinery::format_time(now);
  Json out = pod;
  Json& status = out["status"];
  if (!status.is_object()) status = Json::object();
  status["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
  for (const char* type : {"PodReadyToStartContainers", "Ready", "ContainersReady"}) {
    const char* reason = std::string_view(type) == "PodReadyToStartContainers"
                             ? ""
                             : (exit_code == 0 ? "PodCompleted" : "PodFailed");
    set_condition(out, {type, "False", reason, ""}, now, ConditionStyle::Pod);
  }
  const std::string started = status.value("startTime", t);
  Json containers = Json::array();
  const Json& specs = at_path(pod, {"spec", "containers"});
  if (specs.is_array()) {
    for (const auto& c : specs)
      if (c.is_object())
        containers.push_back(container_status(
            pod, c, terminated(exit_code, started, t, end_reason(pod, exit_code)), false));
  }
  // What the runs before this one left: restarts and the last of them.
  const Json& before = at_path(pod, {"status", "containerStatuses"});
  for (Json& c : containers) {
    if (!before.is_array()) break;
    for (const auto& b : before) {
      if (!b.is_object() || b.value("name", std::string()) != c.value("name", std::string()))
        continue;
      c["restartCount"] = b.value("restartCount", 0);
      if (b.contains("lastState")) c["lastState"] = b["lastState"];
      auto running_since = string_at(b, {"state", "running", "startedAt"});
      if (!running_since.empty()) c["state"]["terminated"]["startedAt"] = running_since;
    }
  }
  status["containerStatuses"] = containers;
  if (!status.contains("startTime")) status["startTime"] = t;
  return status;
}

Json restarted_status(const Json& pod, const std::string& container, int exit_code,
                      std::chrono::system_clock::time_point now) {
  const std::string policy = string_at(pod, {"spec", "restartPolicy"});
  const bool restarts =
      policy.empty() || policy == "Always" || (policy == "OnFailure" && exit_code != 0);
  const std::string t = apimachinery::format_time(now);
  Json status = at_path(pod, {"status"});
  Json& statuses = status["containerStatuses"];
  if (!statuses.is_array()) return status;
  bool any_running = false;
  for (Json& c : statuses) {
    const bool ours = c.value("name", std::string()) == container;
    if (ours && c["state"].contains("running")) {
      const std::string started = string_at(c, {"state", "running", "startedAt"});
      Json ended = terminated(exit_code, started, t, end_reason(pod, exit_code));
      ended["terminated"]["containerID"] = c.value("containerID", std::string());
      if (restarts) {
        c["lastState"] = ended;
        c["state"] = {{"running", {{"startedAt", t}}}};
        c["restartCount"] = c.value("restartCount", 0) + 1;
      } else {
        c["state"] = ended;
        c["ready"] = false;
        c["started"] = false;
      }
    }
    any_running = any_running || c["state"].contains("running");
  }
  if (!any_running) return terminated_status(pod, exit_code, now);
  return status;
}

}  // namespace respool::sandbox::sim
