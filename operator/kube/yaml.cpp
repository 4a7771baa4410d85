#include "operator/kube/yaml.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace respool::kube {

namespace {

using Json = nlohmann::json;

bool is_int(const std::string& s, long long& out) {
  std::string_view v = s;
  if (!v.empty() && v[0] == '+') v.remove_prefix(1);
  if (v.empty()) return false;
  if (v.starts_with("0x") || v.starts_with("0o")) {
    int base = v[1] == 'x' ? 16 : 8;
    v.remove_prefix(2);
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
    return ec == std::errc() && p == v.data() + v.size() && !v.empty();
  }
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && p == v.data() + v.size();
}

// YAML 1.2 core floats: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, and .inf.
bool is_float(const std::string& s, double& out) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "-.inf" || s == "-.Inf" ||
      s == "-.INF") {
    out = s[0] == '-' ? -INFINITY : INFINITY;
    return true;
  }
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
      ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t whole = digits();
  std::size_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits();
  }
  if (whole == 0 && fraction == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  if (i != s.size()) return false;
  out = std::strtod(s.c_str(), nullptr);
  return true;
}

Json scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: always a string
  if (node.Tag() == "tag:yaml.org,2002:str" || node.Tag() == "!!str") return text;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text == "null" || text == "Null" || text == "NULL" || text == "~" || text.empty())
    return nullptr;
  long long i = 0;
  if (is_int(text, i)) return i;
  double d = 0;
  if (is_float(text, d) && std::isfinite(d)) return d;
  return text;
}

Json convert(const YAML::Node& node, int depth) {
  if (depth > 256) throw YAML::Exception(node.Mark(), "nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& item : node) {
        object[item.first.as<std::string>()] = convert(item.second, depth + 1);
      }
      return object;
    }
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const auto& item : node)
        array.push_back(convert(item, depth + 1));
      return array;
    }
    case YAML::NodeType::Scalar:
      return scalar(node);
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
  }
  return nullptr;
}

}  // namespace

std::expected<nlohmann::json, std::string> yaml_to_json(std::string_view text) {
  try {
    return convert(YAML::Load(std::string(text)), 0);
  } catch (const YAML::Exception& e) {
    return std::unexpected(std::string("invalid YAML: ") + e.what());
  }
}

std::expected<std::vector<nlohmann::json>, std::string> yaml_documents_to_json(
    std::string_view text) {
  try {
    std::vector<nlohmann::json> out;
    for (const auto& doc : YAML::LoadAll(std::string(text))) {
      if (doc.IsNull()) continue;
      out.push_back(convert(doc, 0));
    }
    return out;
  } catch (const YAML::Exception& e) {
    return std::unexpected(std::string("invalid YAML: ") + e.what());
  }
}

std::expected<nlohmann::json, std::string> yaml_file_to_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::unexpected("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto json = yaml_to_json(ss.str());
  if (!json) return std::unexpected(path + ": " + json.error());
  return json;
}

}  // namespace respool::kube
