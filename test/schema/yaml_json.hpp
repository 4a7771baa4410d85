#pragma once
// YAML manifests as JSON, for the schema tests that read the project's YAML (crds/, the chart).

#include <yaml-cpp/yaml.h>

#include <regex>
#include <string>

#include <nlohmann/json.hpp>

namespace schema_test::yaml {

using Json = nlohmann::json;

// YAML 1.2 core-schema resolution of a plain scalar, as sigs.k8s.io/yaml reads manifests.
inline Json scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return text;
  static const std::regex null_re("^(~|null|Null|NULL|)$");
  static const std::regex bool_re("^(true|True|TRUE|false|False|FALSE)$");
  static const std::regex int_re("^[-+]?[0-9]+$");
  static const std::regex float_re("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$");
  if (std::regex_match(text, null_re)) return nullptr;
  if (std::regex_match(text, bool_re)) return text[0] == 't' || text[0] == 'T';
  if (std::regex_match(text, int_re)) return Json::parse(text[0] == '+' ? text.substr(1) : text);
  if (std::regex_match(text, float_re)) return std::stod(text);
  return text;
}

inline Json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& entry : node)
        out[entry.first.as<std::string>()] = to_json(entry.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const auto& item : node)
        out.push_back(to_json(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      return scalar(node);
    default:
      return nullptr;
  }
}

}  // namespace schema_test::yaml
