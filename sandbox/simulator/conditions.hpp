#pragma once
// Setting a condition in status.conditions as the owning component does: the transition time
// moves only when the status changes; nodes also carry a heartbeat time.

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

struct ConditionValue {
  std::string type;
  std::string status;  // True | False | Unknown
  std::string reason;
  std::string message;
};

enum class ConditionStyle {
  Node,   // lastHeartbeatTime + lastTransitionTime
  Pod,    // lastProbeTime (null) + lastTransitionTime
  Plain,  // lastTransitionTime (Jobs: also lastProbeTime, set)
  Bare    // lastTransitionTime only (HorizontalPodAutoscalers)
};

// Sets (or adds, at the end) the condition of `value.type` in object["status"]["conditions"].
// Returns whether anything changed apart from the heartbeat.
bool set_condition(nlohmann::json& object, const ConditionValue& value,
                   std::chrono::system_clock::time_point now, ConditionStyle style);

}  // namespace respool::sandbox::sim
