#pragma once
// The JSONPath subset CRD printer columns, scale paths and selectable fields use:
// ".spec.replicas", ".status.conditions[0].type", ".items[*].name",
// ".status.conditions[?(@.type==\"Ready\")].status", "{.spec.x}", and "\." inside a key.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox {

using Json = nlohmann::json;

// Every value the path reaches, in document order. Malformed paths reach nothing.
std::vector<const Json*> json_path_find(const Json& root, std::string_view path);

// The first value the path reaches.
const Json* json_path_first(const Json& root, std::string_view path);

// The field names of a plain dotted path (".spec.replicas" -> {"spec","replicas"}); nullopt for
// anything with brackets. Used to write through a scale path.
std::optional<std::vector<std::string>> json_path_fields(std::string_view path);

}  // namespace respool::sandbox
