#include "sandbox/patch/go_format.hpp"

#include "apimachinery/go_format.hpp"

namespace respool::sandbox::patch {

std::string go_value(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "<nil>";
    case nlohmann::json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::string:
      return value.get<std::string>();
    case nlohmann::json::value_t::number_integer:
      return std::to_string(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return std::to_string(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return apimachinery::go_float(value.get<double>());
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += " ";
        out += go_value(value[i]);
      }
      return out + "]";
    }
    case nlohmann::json::value_t::object: {
      std::string out = "map[";
      bool first = true;
      for (const auto& [key, item] : value.items()) {  // nlohmann keeps keys sorted, as %v does
        if (!first) out += " ";
        first = false;
        out += key + ":" + go_value(item);
      }
      return out + "]";
    }
    default:
      return "<nil>";
  }
}

std::string_view go_json_kind(const nlohmann::json& value) {
  if (value.is_object()) return "object";
  if (value.is_array()) return "array";
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_number()) return "number";
  return "null";
}

std::string_view go_type_name(const nlohmann::json& value) {
  if (value.is_object()) return "map[string]interface {}";
  if (value.is_array()) return "[]interface {}";
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_number_float()) return "float64";
  if (value.is_number()) return "int64";
  return "<nil>";
}

std::string go_unmarshal_error(const nlohmann::json& value, std::string_view go_type) {
  return "json: cannot unmarshal " + std::string(go_json_kind(value)) + " into Go value of type " +
         std::string(go_type);
}

}  // namespace respool::sandbox::patch
