#include "reconcilers/policy/node_operation_ledger.hpp"

#include <algorithm>

#include "reconcilers/policy/json_read.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using json_read::string_at;
using json_read::time_at;
using nlohmann::json;

}  // namespace

const ActiveNode* Ledger::find(std::string_view node) const {
  for (const ActiveNode& a : active) {
    if (a.node == node) return &a;
  }
  return nullptr;
}

int Ledger::active_of(NodeOperationType type) const {
  return int(std::count_if(active.begin(), active.end(),
                           [type](const ActiveNode& a) { return a.type == type; }));
}

int Ledger::active_of(std::string_view operation) const {
  return int(std::count_if(active.begin(), active.end(),
                           [operation](const ActiveNode& a) { return a.operation == operation; }));
}

void Ledger::prune(TimePoint now) {
  std::erase_if(replacements,
                [now](const ReplacementStart& r) { return !in_replacement_window(r.start, now); });
}

bool in_replacement_window(TimePoint start, TimePoint now) {
  return now - start < kReplacementWindow;
}

Budget budget(const Ledger& ledger, int pool_nodes, const ReplacementLimits& limits,
              TimePoint now) {
  Budget b;
  b.replacing = ledger.active_of(NodeOperationType::Replace);
  b.resetting = ledger.active_of(NodeOperationType::Reset);
  b.deleting = ledger.active_of(NodeOperationType::Delete);
  b.replacement_limit = limits.per_day.of_rounding_down(pool_nodes);
  b.concurrent_replacement_limit = limits.concurrent.of_rounding_down(pool_nodes);
  std::vector<TimePoint> starts;
  for (const ReplacementStart& r : ledger.replacements) {
    if (in_replacement_window(r.start, now)) starts.push_back(r.start);
  }
  std::sort(starts.begin(), starts.end());
  b.replacements_in_window = int(starts.size());
  if (b.day_limit_reached()) {
    // The oldest starts leave the window first; one slot frees when in_window drops below the
    // limit, i.e. when the (in_window - limit)-th oldest (0-based) leaves.
    const std::size_t k = std::size_t(b.replacements_in_window - b.replacement_limit);
    b.next_replacement_time = starts[k] + kReplacementWindow;
  }
  return b;
}

json to_json(const Budget& budget, const Ledger& ledger) {
  json out = {{"replacing", budget.replacing},
              {"resetting", budget.resetting},
              {"deleting", budget.deleting},
              {"replacementsInWindow", budget.replacements_in_window},
              {"replacementLimit", budget.replacement_limit},
              {"concurrentReplacementLimit", budget.concurrent_replacement_limit}};
  if (budget.next_replacement_time)
    out["nextReplacementTime"] = format_time(*budget.next_replacement_time);
  json active = json::array();
  for (const ActiveNode& a : ledger.active) {
    active.push_back({{"operation", a.operation},
                      {"type", std::string(to_string(a.type))},
                      {"node", a.node},
                      {"startTime", format_time(a.start)}});
  }
  json replacements = json::array();
  for (const ReplacementStart& r : ledger.replacements) {
    replacements.push_back(
        {{"operation", r.operation}, {"node", r.node}, {"startTime", format_time(r.start)}});
  }
  out["active"] = std::move(active);
  out["replacements"] = std::move(replacements);
  return out;
}

Ledger ledger_from_json(const json& node_operations) {
  Ledger ledger;
  if (!node_operations.is_object()) return ledger;
  if (auto it = node_operations.find("active"); it != node_operations.end() && it->is_array()) {
    for (const json& entry : *it) {
      if (!entry.is_object()) continue;
      auto type = parse_node_operation_type(string_at(entry, "type"));
      auto start = time_at(entry, "startTime");
      ActiveNode a{string_at(entry, "operation"), type.value_or(NodeOperationType::Replace),
                   string_at(entry, "node"), start.value_or(TimePoint{})};
      if (!type || !start || a.operation.empty() || a.node.empty()) continue;
      ledger.active.push_back(std::move(a));
    }
  }
  if (auto it = node_operations.find("replacements");
      it != node_operations.end() && it->is_array()) {
    for (const json& entry : *it) {
      if (!entry.is_object()) continue;
      auto start = time_at(entry, "startTime");
      ReplacementStart r{string_at(entry, "operation"), string_at(entry, "node"),
                         start.value_or(TimePoint{})};
      if (!start || r.node.empty()) continue;
      ledger.replacements.push_back(std::move(r));
    }
  }
  return ledger;
}

}  // namespace respool::policy
