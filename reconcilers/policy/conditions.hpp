#pragma once
// Status conditions as the Kubernetes API conventions define them: type, status, reason,
// message, lastTransitionTime (moves only when status changes) and observedGeneration.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/types.hpp"

namespace respool::policy {

struct Condition {
  std::string type;
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;
  std::string message;
  TimePoint last_transition{};
  std::int64_t observed_generation = 0;
  bool operator==(const Condition&) const = default;
};

// The condition of that type, or nullptr.
const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type);

// Puts `next` into `conditions` (replacing the one of its type, or appended). Its
// lastTransitionTime is the previous one when the status did not change, else `now`.
void set_condition(std::vector<Condition>& conditions, Condition next, TimePoint now);

// `next` with lastTransitionTime carried over from `previous` for unchanged statuses. Conditions
// of `previous` whose type `next` lacks are dropped (the caller owns every type it reports).
std::vector<Condition> merge_conditions(const std::vector<Condition>& previous,
                                        std::vector<Condition> next, TimePoint now);

nlohmann::json to_json(const Condition& condition);
nlohmann::json to_json(const std::vector<Condition>& conditions);
// Lenient: entries without a type are skipped, malformed times read as the epoch.
std::vector<Condition> conditions_from_json(const nlohmann::json& array);

}  // namespace respool::policy
