#pragma once
// Lenient reads of a status's JSON: what is absent or of the wrong type reads as empty.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/time.hpp"

namespace respool::policy::json_read {

inline std::string string_at(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline int int_at(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

inline bool bool_at(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

inline std::optional<TimePoint> time_at(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return parse_time(it->get_ref<const std::string&>());
}

}  // namespace respool::policy::json_read
