#pragma once
// Test helpers: YAML files as JSON (as the operator and kubectl see them), and a small
// structural-schema checker for manifests against the CRDs in crds/.

// GCC 12 reports a false maybe-uninitialized inside std::regex's std::function when built with
// the sanitizers (-O1 + ASan); std::regex is used only here, in tests.
#if defined(__GNUC__) && !defined(__clang__)  // Clang has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace respool::policy::test {

inline nlohmann::json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const auto& item : node)
        array.push_back(yaml_to_json(item));
      return array;
    }
    case YAML::NodeType::Map: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& item : node)
        object[item.first.as<std::string>()] = yaml_to_json(item.second);
      return object;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() == "!") return s;  // quoted or block scalar: always a string
      static const std::regex kInt(R"([-+]?[0-9]+)");
      static const std::regex kFloat(R"([-+]?([0-9]*\.[0-9]+|[0-9]+\.[0-9]*)([eE][-+]?[0-9]+)?)");
      if (s == "null" || s == "~") return nullptr;
      if (s == "true" || s == "True") return true;
      if (s == "false" || s == "False") return false;
      if (std::regex_match(s, kInt)) return std::stoll(s);
      if (std::regex_match(s, kFloat)) return std::stod(s);
      return s;
    }
    default:
      return nullptr;
  }
}

inline std::string source_path(const std::string& relative) {
  return std::string(RESPOOL_SOURCE_DIR) + "/" + relative;
}

inline nlohmann::json load_yaml(const std::string& relative) {
  return yaml_to_json(YAML::LoadFile(source_path(relative)));
}

// The problems of `value` against an OpenAPI v3 structural schema: unknown fields, wrong types,
// enums, patterns, bounds and required fields. Enough to catch a typo in an example; the
// sandbox's schema library is the full validator.
inline void schema_problems(const nlohmann::json& value, const nlohmann::json& schema,
                            const std::string& path, std::vector<std::string>& out) {
  if (schema.value("x-kubernetes-preserve-unknown-fields", false)) return;
  const bool int_or_string = schema.value("x-kubernetes-int-or-string", false);
  const std::string type = schema.value("type", "");
  auto fail = [&](const std::string& what) { out.push_back(path + ": " + what); };
  if (int_or_string) {
    if (!value.is_number_integer() && !value.is_string()) fail("must be an int or a string");
  } else if (type == "object") {
    if (!value.is_object()) return fail("must be an object");
  } else if (type == "array") {
    if (!value.is_array()) return fail("must be an array");
  } else if (type == "string") {
    if (!value.is_string()) return fail("must be a string");
  } else if (type == "integer") {
    if (!value.is_number_integer()) return fail("must be an integer");
  } else if (type == "boolean") {
    if (!value.is_boolean()) return fail("must be a boolean");
  }
  if (schema.contains("enum") &&
      std::find(schema["enum"].begin(), schema["enum"].end(), value) == schema["enum"].end()) {
    fail("not in the enum");
  }
  if (value.is_string() && schema.contains("pattern") &&
      !std::regex_search(value.get<std::string>(),
                         std::regex(schema["pattern"].get<std::string>()))) {
    fail("does not match " + schema["pattern"].get<std::string>());
  }
  if (value.is_number() && schema.contains("minimum") && value.get<double>() < schema["minimum"]) {
    fail("below the minimum");
  }
  if (value.is_string() && schema.contains("maxLength") &&
      value.get<std::string>().size() > schema["maxLength"].get<std::size_t>()) {
    fail("too long");
  }
  if (value.is_array()) {
    if (schema.contains("minItems") && value.size() < schema["minItems"].get<std::size_t>()) {
      fail("too few items");
    }
    if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<std::size_t>()) {
      fail("too many items");
    }
    for (std::size_t i = 0; i < value.size(); ++i) {
      schema_problems(value[i], schema["items"], path + "[" + std::to_string(i) + "]", out);
    }
  }
  if (value.is_object() && type == "object") {
    for (const auto& key : schema.value("required", nlohmann::json::array())) {
      if (!value.contains(key.get<std::string>())) fail("misses " + key.get<std::string>());
    }
    if (schema.contains("maxProperties") &&
        value.size() > schema["maxProperties"].get<std::size_t>()) {
      fail("too many properties");
    }
    for (const auto& [key, item] : value.items()) {
      const std::string child = path + "." + key;
      if (schema.contains("properties") && schema["properties"].contains(key)) {
        schema_problems(item, schema["properties"][key], child, out);
      } else if (schema.contains("additionalProperties")) {
        schema_problems(item, schema["additionalProperties"], child, out);
      } else if (schema.contains("properties")) {
        out.push_back(child + ": unknown field");
      }
    }
  }
}

}  // namespace respool::policy::test
