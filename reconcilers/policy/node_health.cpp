#include "reconcilers/policy/node_health.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using TimePoint = std::chrono::system_clock::time_point;

std::vector<std::string> split_code_list(std::string_view text) {
  std::vector<std::string> out;
  std::stringstream in{std::string(text)};
  for (std::string code; std::getline(in, code, ',');) {
    if (!code.empty()) out.push_back(code);
  }
  return out;
}

std::string join_codes(const std::vector<std::string>& codes) {
  std::string out;
  for (const auto& c : codes) {
    if (!out.empty()) out += ',';
    out += c;
  }
  return out;
}

bool has_code(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A fault code the agent may ask for: in the table and not operational (F4).
bool agent_fault_code(std::string_view code) {
  const IsolationCode* c = find_isolation_code(code);
  return c && !c->operational;
}

bool heartbeat_stale(const AgentCondition& c, TimePoint now,
                     std::chrono::seconds heartbeat_period) {
  return !c.heartbeat || now - *c.heartbeat > 3 * heartbeat_period;
}

// F5: a node past admission and not in a driver upgrade (both take the accelerators away for a
// while, F4) whose allocatable count of its flavor's accelerator is short.
std::optional<std::string> health_accelerator_shortfall(const NodeView& node,
                                                        const Flavor* flavor) {
  if (!flavor || flavor->accelerator.count <= 0 || flavor->accelerator.resource.empty()) {
    return std::nullopt;
  }
  auto codes = isolation_codes_on(node);
  if (has_code(codes, kAdmissionCode) || has_code(codes, kGpuUpgradeCode) ||
      has_code(codes, kNpuUpgradeCode)) {
    return std::nullopt;
  }
  auto have = node.allocatable_of(flavor->accelerator.resource);
  if (have >= flavor->accelerator.count) return std::nullopt;
  return "allocatable " + flavor->accelerator.resource + ": " + std::to_string(have) + " of " +
         std::to_string(flavor->accelerator.count);
}

}  // namespace

std::vector<AgentCondition> agent_conditions_of(const nlohmann::json& node) {
  std::vector<AgentCondition> out;
  const auto status = node.value("status", nlohmann::json::object());
  for (const auto& c : status.value("conditions", nlohmann::json::array())) {
    if (!c.is_object()) continue;
    auto type = c.value("type", "");
    if (std::find(std::begin(kAgentConditionTypes), std::end(kAgentConditionTypes), type) ==
        std::end(kAgentConditionTypes)) {
      continue;
    }
    AgentCondition a{type, c.value("status", ""), c.value("reason", ""), c.value("message", ""),
                     std::nullopt};
    if (auto t = parse_time(c.value("lastHeartbeatTime", ""))) a.heartbeat = *t;
    out.push_back(std::move(a));
  }
  return out;
}

NodeHealthDecision decide_node_health(const NodeView& node,
                                      const std::vector<AgentCondition>& conditions,
                                      const Flavor* flavor, TimePoint now,
                                      std::chrono::seconds heartbeat_period) {
  NodeHealthDecision d;
  const auto present = isolation_codes_on(node);
  auto recorded = split_code_list(node.annotations.contains(kHealthTaintsAnnotation)
                                      ? node.annotations.find(kHealthTaintsAnnotation)->second
                                      : std::string());
  std::set<std::string> wanted;
  for (const auto& c : conditions) {
    const bool is_stale = heartbeat_stale(c, now, heartbeat_period);
    if (is_stale) d.stale.push_back(c.type);
    if (is_stale || c.status != "False" || !agent_fault_code(c.reason)) continue;
    if (wanted.insert(c.reason).second) d.reasons.emplace_back(c.reason, c.type + ": " + c.message);
  }
  if (auto why = health_accelerator_shortfall(node, flavor);
      why && wanted.insert(std::string(kFewerAcceleratorsCode)).second) {
    d.reasons.emplace_back(std::string(kFewerAcceleratorsCode), *why);
  }
  for (const auto& code : wanted) {
    if (!has_code(present, code)) d.add.push_back(code);
  }
  // Only what respool recorded goes, once no finding wants it, and never while a finding is
  // stale: the agent may not have seen the fault clear.
  for (const auto& code : recorded) {
    if (d.stale.empty() && !wanted.contains(code) && has_code(present, code)) {
      d.remove.push_back(code);
    }
  }
  for (const auto& code : recorded) {
    if (!has_code(d.remove, code) && has_code(present, code)) d.recorded.push_back(code);
  }
  for (const auto& code : d.add) {
    if (!has_code(d.recorded, code)) d.recorded.push_back(code);
  }
  std::sort(d.recorded.begin(), d.recorded.end());
  std::erase_if(d.reasons, [&](const auto& r) { return !has_code(d.add, r.first); });
  return d;
}

nlohmann::json node_health_patch(const NodeView& node, const NodeHealthDecision& d) {
  auto current_annotation = [&](std::string_view key) {
    auto it = node.annotations.find(key);
    return it == node.annotations.end() ? std::string() : it->second;
  };
  const std::string recorded = join_codes(d.recorded);
  const std::string stale = join_codes(d.stale);
  const bool annotations_match = current_annotation(kHealthTaintsAnnotation) == recorded &&
                                 current_annotation(kHealthStaleAnnotation) == stale;
  if (d.add.empty() && d.remove.empty() && annotations_match) return nullptr;
  nlohmann::json patch;
  patch["metadata"]["resourceVersion"] = node.resource_version;
  auto& annotations = patch["metadata"]["annotations"];
  annotations[std::string(kHealthTaintsAnnotation)] =
      recorded.empty() ? nlohmann::json(nullptr) : nlohmann::json(recorded);
  annotations[std::string(kHealthStaleAnnotation)] =
      stale.empty() ? nlohmann::json(nullptr) : nlohmann::json(stale);
  if (!d.add.empty() || !d.remove.empty()) {
    std::vector<Taint> taints;
    for (const auto& t : node.taints) {
      const bool removed = std::any_of(d.remove.begin(), d.remove.end(), [&](const auto& code) {
        return t.key == isolation_taint_key(code);
      });
      if (!removed) taints.push_back(t);
    }
    for (const auto& code : d.add)
      taints.push_back({isolation_taint_key(code), "", "NoSchedule", ""});
    patch["spec"]["taints"] = taints_to_json(taints);
  }
  return patch;
}

}  // namespace respool::policy
