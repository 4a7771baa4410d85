#include "sandbox/simulator/conditions.hpp"

#include "apimachinery/time.hpp"

namespace respool::sandbox::sim {

bool set_condition(nlohmann::json& object, const ConditionValue& value,
                   std::chrono::system_clock::time_point now, ConditionStyle style) {
  using Json = nlohmann::json;
  if (!object["status"].is_object()) object["status"] = Json::object();
  Json& conditions = object["status"]["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  const std::string t = apimachinery::format_time(now);
  Json* found = nullptr;
  for (auto& c : conditions) {
    if (c.is_object() && c.value("type", std::string()) == value.type) found = &c;
  }
  if (!found) {
    conditions.push_back(Json::object());
    found = &conditions.back();
    (*found)["type"] = value.type;
  }
  Json& c = *found;
  const bool transition = c.value("status", std::string()) != value.status;
  const bool changed = transition || c.value("reason", std::string()) != value.reason ||
                       c.value("message", std::string()) != value.message ||
                       !c.contains("lastTransitionTime");
  c["status"] = value.status;
  if (value.reason.empty()) {
    c.erase("reason");
  } else {
    c["reason"] = value.reason;
  }
  if (value.message.empty()) {
    c.erase("message");
  } else {
    c["message"] = value.message;
  }
  if (transition || !c.contains("lastTransitionTime")) c["lastTransitionTime"] = t;
  switch (style) {
    case ConditionStyle::Node:
      if (changed) c["lastHeartbeatTime"] = t;
      break;
    case ConditionStyle::Pod:
      if (!c.contains("lastProbeTime")) c["lastProbeTime"] = nullptr;
      break;
    case ConditionStyle::Plain:
      if (changed) c["lastProbeTime"] = t;
      break;
    case ConditionStyle::Bare:
      break;
  }
  return changed;
}

}  // namespace respool::sandbox::sim
