#include "agent/report/conditions.hpp"

#include <algorithm>

#include "operator/kube/time.hpp"

namespace respool::agent {

namespace {

const NodeCondition* find(const std::vector<NodeCondition>& list, std::string_view type) {
  for (const auto& c : list) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool is_agent_type(std::string_view type) {
  return std::any_of(std::begin(kFamilies), std::end(kFamilies),
                     [&](Family f) { return condition_type(f) == type; });
}

TimePoint parse_time(const nlohmann::json& c, const char* key) {
  auto text = c.value(key, "");
  auto t = kube::parse_time(text);
  return t ? *t : TimePoint{};
}

nlohmann::json to_json(const NodeCondition& c) {
  return {{"type", c.type},
          {"status", c.status},
          {"reason", c.reason},
          {"message", c.message},
          {"lastHeartbeatTime", kube::format_time(c.last_heartbeat)},
          {"lastTransitionTime", kube::format_time(c.last_transition)}};
}

// "GPU 1 (GPU-b): volatile uncorrectable ECC errors: 2; GPU 3 (...): ..." within the API's
// 32 KiB message limit (kept far shorter: a node event repeats it).
std::string fault_message(const std::vector<Finding>& faults) {
  std::string out;
  for (const auto& f : faults) {
    std::string one = f.device.empty() ? f.message : f.device + ": " + f.message;
    if (f.code != faults.front().code) one += " (" + f.code + ")";
    if (!out.empty()) out += "; ";
    if (out.size() + one.size() > 1000) {
      out += "...";
      break;
    }
    out += one;
  }
  return out;
}

}  // namespace

std::vector<NodeCondition> agent_conditions(const nlohmann::json& node) {
  std::vector<NodeCondition> out;
  auto status = node.value("status", nlohmann::json::object());
  for (const auto& c : status.value("conditions", nlohmann::json::array())) {
    if (!c.is_object() || !is_agent_type(c.value("type", ""))) continue;
    out.push_back({c.value("type", ""), c.value("status", ""), c.value("reason", ""),
                   c.value("message", ""), parse_time(c, "lastHeartbeatTime"),
                   parse_time(c, "lastTransitionTime")});
  }
  return out;
}

std::optional<NodeCondition> desired_condition(const FamilyResult& result, TimePoint now) {
  if (!result.applies) return std::nullopt;
  NodeCondition c;
  c.type = std::string(condition_type(result.family));
  c.last_heartbeat = now;
  c.last_transition = now;
  if (!result.faults.empty()) {
    c.status = "False";
    c.reason = result.faults.front().code;
    c.message = fault_message(result.faults);
    return c;
  }
  if (!result.conclusive) return std::nullopt;
  c.status = "True";
  c.reason = "Healthy";
  c.message = "no fault found";
  return c;
}

ConditionPlan plan_conditions(const std::vector<NodeCondition>& current,
                              const std::vector<FamilyResult>& results, TimePoint now,
                              std::chrono::seconds heartbeat_period) {
  ConditionPlan plan;
  bool changed = false;
  bool heartbeat_due = false;
  for (const auto& result : results) {
    auto want = desired_condition(result, now);
    if (!want) continue;
    const NodeCondition* have = find(current, want->type);
    if (have && have->status == want->status) want->last_transition = have->last_transition;
    if (!have || have->status != want->status) {
      plan.transitions.push_back({result.family, have ? have->status : "", *want});
    }
    if (!have || have->status != want->status || have->reason != want->reason ||
        have->message != want->message) {
      changed = true;
    } else if (now - have->last_heartbeat >= heartbeat_period) {
      heartbeat_due = true;
    }
    plan.written.push_back(std::move(*want));
  }
  if (!changed && !heartbeat_due) {
    plan.written.clear();
    return plan;
  }
  plan.heartbeat_only = !changed;
  auto conditions = nlohmann::json::array();
  for (const auto& c : plan.written)
    conditions.push_back(to_json(c));
  plan.patch = {{"status", {{"conditions", conditions}}}};
  return plan;
}

}  // namespace respool::agent
