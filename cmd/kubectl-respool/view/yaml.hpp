#pragma once
// JSON as YAML, for `-o yaml` (block style, as kubectl prints objects).

#include <string>

#include <nlohmann/json.hpp>

namespace respool::kubectl {

std::string to_yaml(const nlohmann::json& value);

}  // namespace respool::kubectl
