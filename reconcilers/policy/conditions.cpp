#include "reconcilers/policy/conditions.hpp"

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

void set_condition(std::vector<Condition>& conditions, Condition next, TimePoint now) {
  for (Condition& c : conditions) {
    if (c.type != next.type) continue;
    next.last_transition = c.status == next.status ? c.last_transition : now;
    c = std::move(next);
    return;
  }
  next.last_transition = now;
  conditions.push_back(std::move(next));
}

std::vector<Condition> merge_conditions(const std::vector<Condition>& previous,
                                        std::vector<Condition> next, TimePoint now) {
  for (Condition& c : next) {
    const Condition* old = find_condition(previous, c.type);
    c.last_transition = old && old->status == c.status ? old->last_transition : now;
  }
  return next;
}

nlohmann::json to_json(const Condition& c) {
  return {{"type", c.type},
          {"status", c.status},
          {"reason", c.reason},
          {"message", c.message},
          {"lastTransitionTime", format_time(c.last_transition)},
          {"observedGeneration", c.observed_generation}};
}

nlohmann::json to_json(const std::vector<Condition>& conditions) {
  nlohmann::json array = nlohmann::json::array();
  for (const Condition& c : conditions)
    array.push_back(to_json(c));
  return array;
}

std::vector<Condition> conditions_from_json(const nlohmann::json& array) {
  std::vector<Condition> out;
  if (!array.is_array()) return out;
  for (const auto& item : array) {
    if (!item.is_object() || !item.contains("type") || !item["type"].is_string()) continue;
    Condition c;
    c.type = item["type"].get<std::string>();
    c.status = item.value("status", "Unknown");
    c.reason = item.value("reason", "");
    c.message = item.value("message", "");
    if (auto t = item.find("lastTransitionTime"); t != item.end() && t->is_string()) {
      c.last_transition = parse_time(t->get<std::string>()).value_or(TimePoint{});
    }
    if (auto g = item.find("observedGeneration"); g != item.end() && g->is_number_integer()) {
      c.observed_generation = g->get<std::int64_t>();
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace respool::policy
