#include "sandbox/simulator/node_taints.hpp"

#include <algorithm>
#include <string>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

const char* const kManagedKeys[] = {
    kTaintNotReady,     kTaintUnreachable, kTaintUnschedulable,     kTaintMemoryPressure,
    kTaintDiskPressure, kTaintPidPressure, kTaintNetworkUnavailable};

bool managed(const std::string& key) {
  return std::any_of(std::begin(kManagedKeys), std::end(kManagedKeys),
                     [&](const char* k) { return key == k; });
}

}  // namespace

std::vector<Taint> condition_taints(const Json& node) {
  std::vector<Taint> out;
  if (find_condition(node, "Ready")) {
    switch (condition_status(node, "Ready")) {
      case kube::ConditionStatus::False:
        out.push_back({kTaintNotReady, "", "NoSchedule"});
        out.push_back({kTaintNotReady, "", "NoExecute"});
        break;
      case kube::ConditionStatus::Unknown:
        out.push_back({kTaintUnreachable, "", "NoSchedule"});
        out.push_back({kTaintUnreachable, "", "NoExecute"});
        break;
      case kube::ConditionStatus::True:
        break;
    }
  }
  const std::pair<const char*, const char*> pressure[] = {
      {"MemoryPressure", kTaintMemoryPressure},
      {"DiskPressure", kTaintDiskPressure},
      {"PIDPressure", kTaintPidPressure},
      {"NetworkUnavailable", kTaintNetworkUnavailable}};
  for (const auto& [type, key] : pressure) {
    if (condition_status(node, type) == kube::ConditionStatus::True && find_condition(node, type))
      out.push_back({key, "", "NoSchedule"});
  }
  const Json& unschedulable = at_path(node, {"spec", "unschedulable"});
  if (unschedulable.is_boolean() && unschedulable.get<bool>())
    out.push_back({kTaintUnschedulable, "", "NoSchedule"});
  return out;
}

bool mirror_condition_taints(Json& node, std::chrono::system_clock::time_point now) {
  const std::vector<Taint> wanted = condition_taints(node);
  Json current = at_path(node, {"spec", "taints"});
  if (!current.is_array()) current = Json::array();
  Json next = Json::array();
  bool changed = false;
  for (const auto& t : current) {
    const std::string key = t.is_object() ? t.value("key", std::string()) : std::string();
    const std::string effect = t.is_object() ? t.value("effect", std::string()) : std::string();
    const bool keep =
        !managed(key) || std::any_of(wanted.begin(), wanted.end(), [&](const Taint& w) {
          return w.key == key && w.effect == effect;
        });
    if (keep) {
      next.push_back(t);
    } else {
      changed = true;
    }
  }
  for (const auto& w : wanted) {
    const bool present = std::any_of(next.begin(), next.end(), [&](const Json& t) {
      return t.value("key", std::string()) == w.key && t.value("effect", std::string()) == w.effect;
    });
    if (present) continue;
    Json taint = taint_to_json(w);
    if (w.effect == "NoExecute") taint["timeAdded"] = apimachinery::format_time(now);
    next.push_back(std::move(taint));
    changed = true;
  }
  if (!changed) return false;
  if (!node["spec"].is_object()) node["spec"] = Json::object();
  if (next.empty()) {
    node["spec"].erase("taints");
  } else {
    node["spec"]["taints"] = std::move(next);
  }
  return true;
}

}  // namespace respool::sandbox::sim
