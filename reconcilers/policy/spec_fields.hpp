#pragma once
// Typed reads of a spec that record a Violation naming the field instead of throwing; shared by
// the pool (spec.cpp) and network (network_spec.cpp) spec checks.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/spec.hpp"

namespace respool::policy::spec_fields {

// "spec.resources" and 2 -> "spec.resources[2]".
inline std::string at(const std::string& field, std::size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

// The member `key`, or nullptr when it is absent or null.
inline const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// The string at `key`; nullopt when absent, or (with a violation of `field`) not a string.
inline std::optional<std::string> read_string(const nlohmann::json& object, const char* key,
                                              const std::string& field,
                                              std::vector<Violation>& out) {
  const nlohmann::json* value = member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_string()) {
    out.push_back({field, "", "must be a string"});
    return std::nullopt;
  }
  return value->get<std::string>();
}

}  // namespace respool::policy::spec_fields
