#include "reconcilers/policy/remediation_objects.hpp"

#include <algorithm>

#include "reconcilers/policy/json_read.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_operation_status.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

void add_fault(std::vector<std::string>& codes, const std::string& code) {
  const IsolationCode* known = find_isolation_code(code);
  if (known && known->operational) return;  // F4
  if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
}

int label_number(const json& labels, std::string_view key) {
  auto it = labels.find(std::string(key));
  if (it == labels.end() || !it->is_string()) return 0;
  try {
    return std::stoi(it->get<std::string>());
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

RemediationNode remediation_node(const NodeView& view, const PoolNode& node) {
  RemediationNode out;
  out.name = view.name;
  for (const std::string& code : isolation_codes_on(view))
    add_fault(out.fault_codes, code);
  out.abnormal = node.state.state == NodeState::Abnormal;
  if (out.abnormal) {
    for (const std::string& code : node.state.codes)
      add_fault(out.fault_codes, code);
  }
  return out;
}

OperationOnNodes operation_on_nodes(const json& operation) {
  OperationOnNodes out;
  const json spec = operation.value("spec", json::object());
  for (const auto& n : spec.value("nodes", json::array()))
    if (n.is_string()) out.nodes.push_back(n.get<std::string>());
  if (auto type = parse_node_operation_type(json_read::string_at(spec, "type"))) out.type = *type;
  const json meta = operation.value("metadata", json::object());
  const json status = operation.value("status", json::object());
  const std::string phase = json_read::string_at(status, "phase");
  auto parsed = parse_operation_phase(phase);
  const bool ended = parsed && is_terminal(*parsed);
  // A preview (N18) never holds a node: it touches nothing.
  const auto preview_field = spec.find("preview");
  const bool preview =
      preview_field != spec.end() && preview_field->is_boolean() && preview_field->get<bool>();
  out.active = !meta.contains("deletionTimestamp") && !ended && !preview;
  const json labels = meta.value("labels", json::object());
  if (labels.value(std::string(kRemediationLabel), "") == "auto") {
    AutomaticOperation a;
    a.name = json_read::string_at(meta, "name");
    a.step = label_number(labels, kRemediationStepLabel) - 1;  // the label counts from 1
    a.attempt = label_number(labels, kRemediationAttemptLabel);
    // A deleted automatic operation that never ended counts as failed: someone stopped it.
    a.phase = meta.contains("deletionTimestamp") && !ended ? "Failed" : phase;
    a.reason = json_read::string_at(status, "reason");
    out.automatic = std::move(a);
  }
  return out;
}

void attach_operations(std::vector<RemediationNode>& nodes,
                       const std::vector<std::pair<std::string, OperationOnNodes>>& operations) {
  for (RemediationNode& node : nodes) {
    for (const auto& [name, op] : operations) {
      if (std::find(op.nodes.begin(), op.nodes.end(), node.name) == op.nodes.end()) continue;
      if (!op.automatic) {
        if (op.active && !node.person_operation) node.person_operation = name;
        continue;
      }
      const AutomaticOperation& a = *op.automatic;
      if (!node.automatic ||
          std::pair(a.step, a.attempt) > std::pair(node.automatic->step, node.automatic->attempt))
        node.automatic = a;
    }
  }
}

json remediation_operation(const RemediationAction& action, const std::string& pool,
                           const std::string& pool_uid) {
  json spec = {{"pool", pool},
               {"type", std::string(to_string(action.what.action))},
               {"nodes", json::array({action.node})}};
  if (action.what.action == NodeOperationType::Reset) spec["reset"] = {{"os", action.what.os}};
  if (action.preview) spec["preview"] = true;
  json labels = {{std::string(kRemediationLabel), "auto"},
                 {std::string(kRemediationStepLabel), std::to_string(action.step + 1)},
                 {std::string(kRemediationAttemptLabel), std::to_string(action.attempt)},
                 {std::string(kPoolLabel), pool}};
  json owner = {{"apiVersion", std::string(kApiVersion)},
                {"kind", "ResourcePool"},
                {"name", pool},
                {"uid", pool_uid}};
  return {
      {"apiVersion", std::string(kApiVersion)},
      {"kind", "NodeOperation"},
      {"metadata",
       {{"name", remediation_operation_name(action.node, action.code, action.step, action.attempt)},
        {"labels", std::move(labels)},
        {"ownerReferences", json::array({std::move(owner)})}}},
      {"spec", std::move(spec)}};
}

std::string remediation_summary(const RemediationPlan& plan) {
  if (plan.paused) return "Paused";
  if (plan.nodes.empty()) return "Idle";
  // Counts by state, in the order a node goes through them.
  static constexpr const char* kOrder[] = {"Running", "Escalating", "Retrying",  "Waiting",
                                           "Held",    "Paused",     "Previewed", "Exhausted"};
  std::string out;
  for (const char* state : kOrder) {
    const auto n = std::count_if(plan.nodes.begin(), plan.nodes.end(),
                                 [&](const RemediationView& v) { return v.state == state; });
    if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + state;
  }
  return out;
}

json remediation_status(const RemediationPlan& plan, const RemediationInput& input) {
  json nodes = to_json(plan.memory);
  for (json& item : nodes) {
    for (const RemediationView& v : plan.nodes) {
      if (v.node != item["node"].get<std::string>()) continue;
      item["state"] = v.state;
      item["message"] = v.message;
      if (v.next_action) item["nextAction"] = format_time(*v.next_action);
    }
  }
  int abnormal = 0;
  for (const RemediationNode& n : input.nodes)
    abnormal += n.abnormal;
  const int total = static_cast<int>(input.nodes.size());
  // N14's threshold as a count: the most abnormal nodes that leave remediation running.
  int allowed = 0;
  if (input.spec) {
    const IntOrPercent& max = input.spec->max_unhealthy;
    allowed =
        max.percent ? static_cast<int>(static_cast<long>(max.value) * total / 100) : max.value;
  }
  json out = {{"paused", plan.paused},
              {"unhealthy", abnormal},
              {"maxUnhealthy", allowed},
              {"nodes", std::move(nodes)}};
  if (plan.paused) out["message"] = plan.paused_message;
  out["summary"] = remediation_summary(plan);
  return out;
}

json remediation_status_invalid(const std::vector<Violation>& violations) {
  return {{"paused", false},
          {"message", "not followed: " + join(violations)},
          {"invalid", true},
          {"summary", "Invalid"},
          {"nodes", json::array()}};
}

Condition remediation_condition(const json& status_remediation) {
  Condition c;
  c.type = std::string(kRemediationPausedCondition);
  if (status_remediation.value("paused", false)) {
    c.status = "True";
    c.reason = "TooManyUnhealthy";
    c.message = json_read::string_at(status_remediation, "message") +
                "; no automatic operation starts, running ones finish (N14)";
  } else if (status_remediation.value("invalid", false)) {
    c.status = "False";
    c.reason = "InvalidRemediation";
    c.message = json_read::string_at(status_remediation, "message");
  } else {
    c.status = "False";
    c.reason = "Active";
    const int unhealthy = json_read::int_at(status_remediation, "unhealthy");
    c.message = std::to_string(unhealthy) + (unhealthy == 1 ? " node" : " nodes") +
                " abnormal; remediation pauses above " +
                std::to_string(json_read::int_at(status_remediation, "maxUnhealthy"));
  }
  return c;
}

}  // namespace respool::policy
