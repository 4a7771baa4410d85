#include "reconcilers/policy/node_operation_status.hpp"

#include <algorithm>

#include "reconcilers/policy/json_read.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using json_read::string_at;
using json_read::time_at;
using nlohmann::json;

std::optional<NodePhase> parse_node_phase(std::string_view text) {
  for (NodePhase p :
       {NodePhase::Pending, NodePhase::Running, NodePhase::Succeeded, NodePhase::Failed}) {
    if (to_string(p) == text) return p;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(OperationPhase phase) {
  switch (phase) {
    case OperationPhase::Pending:
      return "Pending";
    case OperationPhase::Running:
      return "Running";
    case OperationPhase::Succeeded:
      return "Succeeded";
    case OperationPhase::Failed:
      return "Failed";
    case OperationPhase::Rejected:
      return "Rejected";
    case OperationPhase::Previewed:
      return "Previewed";
  }
  return "Pending";
}

std::optional<OperationPhase> parse_operation_phase(std::string_view text) {
  for (OperationPhase p :
       {OperationPhase::Pending, OperationPhase::Running, OperationPhase::Succeeded,
        OperationPhase::Failed, OperationPhase::Rejected, OperationPhase::Previewed}) {
    if (to_string(p) == text) return p;
  }
  return std::nullopt;
}

bool is_terminal(OperationPhase phase) {
  return phase == OperationPhase::Succeeded || phase == OperationPhase::Failed ||
         phase == OperationPhase::Rejected || phase == OperationPhase::Previewed;
}

std::string_view to_string(NodePhase phase) {
  switch (phase) {
    case NodePhase::Pending:
      return "Pending";
    case NodePhase::Running:
      return "Running";
    case NodePhase::Succeeded:
      return "Succeeded";
    case NodePhase::Failed:
      return "Failed";
  }
  return "Pending";
}

bool is_terminal(NodePhase phase) {
  return phase == NodePhase::Succeeded || phase == NodePhase::Failed;
}

bool NodeProgress::has_step(std::string_view step) const {
  return std::any_of(steps.begin(), steps.end(),
                     [step](const StepRecord& s) { return s.step == step; });
}

bool NodeProgress::add_step(std::string_view step, TimePoint now, std::string message) {
  if (has_step(step)) return false;
  steps.push_back({std::string(step), now, std::move(message)});
  return true;
}

NodeProgress* OperationStatus::node(std::string_view name) {
  for (NodeProgress& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

const NodeProgress* OperationStatus::node(std::string_view name) const {
  return const_cast<OperationStatus*>(this)->node(name);
}

OperationPhase phase_from_nodes(const std::vector<NodeProgress>& nodes) {
  bool started = false, all_ended = !nodes.empty(), failed = false;
  for (const NodeProgress& n : nodes) {
    if (n.phase != NodePhase::Pending) started = true;
    if (!is_terminal(n.phase)) all_ended = false;
    if (n.phase == NodePhase::Failed) failed = true;
  }
  if (all_ended) return failed ? OperationPhase::Failed : OperationPhase::Succeeded;
  return started ? OperationPhase::Running : OperationPhase::Pending;
}

void settle_status(OperationStatus& status, TimePoint now) {
  if (status.phase != OperationPhase::Rejected && status.phase != OperationPhase::Previewed)
    status.phase = phase_from_nodes(status.nodes);
  if (status.phase == OperationPhase::Running && !status.start) status.start = now;
  if (status.phase == OperationPhase::Succeeded || status.phase == OperationPhase::Failed) {
    if (!status.start) status.start = now;
  }
  if (is_terminal(status.phase) && !status.completion) status.completion = now;
  const std::string phase(to_string(status.phase));
  const std::string reason = status.reason.empty() ? phase : status.reason;
  std::vector<Condition> next;
  next.push_back({"Ready",
                  status.phase == OperationPhase::Succeeded ? "True" : "False",
                  status.phase == OperationPhase::Succeeded ? "Succeeded" : reason,
                  status.message,
                  {},
                  status.observed_generation});
  const bool progressing =
      status.phase == OperationPhase::Pending || status.phase == OperationPhase::Running;
  next.push_back({"Progressing",
                  progressing ? "True" : "False",
                  reason,
                  status.message,
                  {},
                  status.observed_generation});
  status.conditions = merge_conditions(status.conditions, std::move(next), now);
}

json to_json(const OperationStatus& status) {
  json out = {{"observedGeneration", status.observed_generation},
              {"phase", std::string(to_string(status.phase))}};
  if (!status.reason.empty()) out["reason"] = status.reason;
  if (!status.message.empty()) out["message"] = status.message;
  if (status.start) out["startTime"] = format_time(*status.start);
  if (status.completion) out["completionTime"] = format_time(*status.completion);
  json nodes = json::array();
  for (const NodeProgress& n : status.nodes) {
    json entry = {{"name", n.name}, {"phase", std::string(to_string(n.phase))}};
    if (!n.reason.empty()) entry["reason"] = n.reason;
    if (!n.message.empty()) entry["message"] = n.message;
    if (!n.replacement.empty()) entry["replacement"] = n.replacement;
    if (n.start) entry["startTime"] = format_time(*n.start);
    if (!n.steps.empty()) {
      json steps = json::array();
      for (const StepRecord& s : n.steps) {
        json step = {{"step", s.step}, {"time", format_time(s.time)}};
        if (!s.message.empty()) step["message"] = s.message;
        steps.push_back(std::move(step));
      }
      entry["steps"] = std::move(steps);
    }
    nodes.push_back(std::move(entry));
  }
  out["nodes"] = std::move(nodes);
  if (!status.interrupted_jobs.empty()) out["interruptedJobs"] = status.interrupted_jobs;
  out["conditions"] = to_json(status.conditions);
  if (!status.preview.is_null()) out["preview"] = status.preview;
  return out;
}

OperationStatus operation_status_from_json(const json& status) {
  OperationStatus out;
  if (!status.is_object()) return out;
  if (auto it = status.find("observedGeneration"); it != status.end() && it->is_number_integer())
    out.observed_generation = it->get<std::int64_t>();
  out.phase = parse_operation_phase(string_at(status, "phase")).value_or(OperationPhase::Pending);
  out.reason = string_at(status, "reason");
  out.message = string_at(status, "message");
  out.start = time_at(status, "startTime");
  out.completion = time_at(status, "completionTime");
  if (auto it = status.find("nodes"); it != status.end() && it->is_array()) {
    for (const json& entry : *it) {
      if (!entry.is_object() || string_at(entry, "name").empty()) continue;
      NodeProgress n;
      n.name = string_at(entry, "name");
      n.phase = parse_node_phase(string_at(entry, "phase")).value_or(NodePhase::Pending);
      n.reason = string_at(entry, "reason");
      n.message = string_at(entry, "message");
      n.replacement = string_at(entry, "replacement");
      n.start = time_at(entry, "startTime");
      if (auto steps = entry.find("steps"); steps != entry.end() && steps->is_array()) {
        for (const json& s : *steps) {
          if (!s.is_object() || string_at(s, "step").empty()) continue;
          n.steps.push_back({string_at(s, "step"), time_at(s, "time").value_or(TimePoint{}),
                             string_at(s, "message")});
        }
      }
      out.nodes.push_back(std::move(n));
    }
  }
  if (auto it = status.find("interruptedJobs"); it != status.end() && it->is_array()) {
    for (const json& j : *it) {
      if (j.is_string()) out.interrupted_jobs.push_back(j.get<std::string>());
    }
  }
  if (auto it = status.find("conditions"); it != status.end())
    out.conditions = conditions_from_json(*it);
  if (auto it = status.find("preview"); it != status.end() && it->is_object()) out.preview = *it;
  return out;
}

}  // namespace respool::policy
