#include "cmd/kubectl-respool/view/yaml.hpp"

#include <cctype>
#include <cstdlib>

#include <yaml-cpp/yaml.h>

namespace respool::kubectl {
namespace {

bool reads_as_other_type(const std::string& s) {
  if (s.empty()) return true;
  std::string lower;
  for (char c : s)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"true", "false", "null", "~", "yes", "no", "on", "off", "y", "n"})
    if (lower == word) return true;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

void emit(YAML::Emitter& out, const nlohmann::json& v) {
  if (v.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, value] : v.items()) {
      out << YAML::Key << key << YAML::Value;
      emit(out, value);
    }
    out << YAML::EndMap;
  } else if (v.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& item : v)
      emit(out, item);
    out << YAML::EndSeq;
  } else if (v.is_string()) {
    // Quoted when YAML would read it as another type ("true", "1.0", "null").
    const auto& s = v.get_ref<const std::string&>();
    if (reads_as_other_type(s)) out << YAML::DoubleQuoted;
    out << s;
  } else if (v.is_null()) {
    out << YAML::Null;
  } else {
    out << v.dump();
  }
}

}  // namespace

std::string to_yaml(const nlohmann::json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

}  // namespace respool::kubectl
