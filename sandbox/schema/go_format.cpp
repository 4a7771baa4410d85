#include "sandbox/schema/go_format.hpp"

#include <cmath>
#include <limits>

namespace respool::sandbox::schema::detail {

Kind kind_of(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return Kind::Null;
    case Json::value_t::boolean:
      return Kind::Bool;
    case Json::value_t::number_integer:
      return Kind::Int;
    case Json::value_t::number_unsigned:
      return value.get<std::uint64_t>() <=
                     static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? Kind::Int
                 : Kind::Float;
    case Json::value_t::number_float:
      return Kind::Float;
    case Json::value_t::string:
      return Kind::String;
    case Json::value_t::array:
      return Kind::Array;
    case Json::value_t::object:
      return Kind::Object;
    default:
      return Kind::Null;  // binary and discarded values never come out of a JSON parse
  }
}

std::int64_t as_int(const Json& value) {
  if (value.is_number_unsigned()) return static_cast<std::int64_t>(value.get<std::uint64_t>());
  if (value.is_number_integer()) return value.get<std::int64_t>();
  const double number = value.get<double>();
  constexpr double limit = 9223372036854775808.0;  // 2^63
  if (std::isnan(number)) return 0;
  if (number >= limit) return std::numeric_limits<std::int64_t>::max();
  if (number < -limit) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(number);
}

std::int64_t to_int64(double value) {
  constexpr double limit = 9223372036854775808.0;  // 2^63
  if (std::isnan(value) || value >= limit || value < -limit) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(value);
}

double as_float(const Json& value) {
  if (value.is_number_unsigned()) return static_cast<double>(value.get<std::uint64_t>());
  if (value.is_number_integer()) return static_cast<double>(value.get<std::int64_t>());
  return value.get<double>();
}

std::string go_number(const Json& value) {
  return kind_of(value) == Kind::Int ? std::to_string(as_int(value)) : go_float(as_float(value));
}

std::string go_syntax(const Json& value) {
  switch (kind_of(value)) {
    case Kind::Null:
      return "interface {}(nil)";
    case Kind::Bool:
      return value.get<bool>() ? "true" : "false";
    case Kind::Int:
    case Kind::Float:
      return go_number(value);
    case Kind::String:
      return go_quote(value.get_ref<const std::string&>());
    case Kind::Array: {
      std::string out = "[]interface {}{";
      for (std::size_t i = 0; i < value.size(); ++i) {
        out += (i ? ", " : "") + go_syntax(value[i]);
      }
      return out + "}";
    }
    case Kind::Object: {
      std::string out = "map[string]interface {}{";
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        out += (first ? "" : ", ") + go_quote(key) + ":" + go_syntax(item);
        first = false;
      }
      return out + "}";
    }
  }
  return "";
}

std::string go_json(const Json& value) {
  switch (kind_of(value)) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return value.get<bool>() ? "true" : "false";
    case Kind::Int:
      return std::to_string(as_int(value));
    case Kind::Float:
      return go_json_float(as_float(value));
    case Kind::String:
      return go_json_string(value.get_ref<const std::string&>());
    case Kind::Array: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i)
        out += (i ? "," : "") + go_json(value[i]);
      return out + "]";
    }
    case Kind::Object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        out += (first ? "" : ",") + go_json_string(key) + ":" + go_json(item);
        first = false;
      }
      return out + "}";
    }
  }
  return "";
}

std::string go_bad_value(const Json& value) {
  switch (kind_of(value)) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
    case Kind::Int:
    case Kind::Float:
      return go_syntax(value);
    case Kind::String:
      return go_quote(value.get_ref<const std::string&>());
    default:
      return go_syntax(value);
  }
}

}  // namespace respool::sandbox::schema::detail
