// kube-openapi's string, number and common (enum) validators and their messages.

#include <cmath>
#include <memory>
#include <unordered_map>
#include "sandbox/schema/regex.hpp"

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/go_format.hpp"
#include "sandbox/schema/openapi.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

namespace {

// utf8.RuneCount: every byte that does not continue a sequence starts a rune.
std::int64_t rune_count(const std::string& text) {
  std::int64_t count = 0;
  for (unsigned char c : text)
    count += (c & 0xC0) != 0x80;
  return count;
}

// A CRD pattern is RE2 syntax; std::regex's ECMAScript grammar agrees on the common subset.
// A leading (?i) becomes the icase flag and \A, \z become ^, $.
struct CompiledPattern {
  std::unique_ptr<std::regex> regex;
  std::string error;
};

const CompiledPattern& compile(const std::string& pattern) {
  thread_local std::unordered_map<std::string, CompiledPattern> cache;
  auto it = cache.find(pattern);
  if (it != cache.end()) return it->second;
  std::string source = pattern;
  auto flags = std::regex::ECMAScript;
  if (source.rfind("(?i)", 0) == 0) {
    source.erase(0, 4);
    flags |= std::regex::icase;
  }
  for (auto [from, to] : {std::pair{"\\A", "^"}, std::pair{"\\z", "$"}}) {
    for (auto pos = source.find(from); pos != std::string::npos; pos = source.find(from, pos)) {
      source.replace(pos, 2, to);
    }
  }
  CompiledPattern compiled;
  try {
    compiled.regex = std::make_unique<std::regex>(source, flags);
  } catch (const std::regex_error& e) {
    compiled.error = std::string("error parsing regexp: ") + e.what();
  }
  return cache.emplace(pattern, std::move(compiled)).first->second;
}

std::optional<double> number_member(const Json& schema, const char* key) {
  const Json* value = member(schema, key);
  if (!value || !value->is_number()) return std::nullopt;
  return as_float(*value);
}

// A bound or factor as the message prints it: truncated to an int64 when the value is an
// integer (kube-openapi compares integers against int64(bound)), else as a float64.
std::string bound_text(double bound, bool integer) {
  return integer ? std::to_string(to_int64(bound)) : go_float(bound);
}

// fmt's %v of the []interface{} an enum is: "[small medium large]".
std::string go_list(const std::vector<Json>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Json& v = values[i];
    out += i ? " " : "";
    out += v.is_string() ? v.get<std::string>() : v.is_null() ? "<nil>" : go_json(v);
  }
  return out + "]";
}

}  // namespace

bool is_json_integer(double value) {
  constexpr double max_exact = 9007199254740991.0;  // 2^53 - 1
  if (!std::isfinite(value) || std::fabs(value) > max_exact) return false;
  if (value == std::trunc(value)) return true;
  if (value < 0) return false;  // Go's uint64(f) of a negative float is far from f
  const double truncated = std::trunc(value);
  if (truncated == 0) return false;
  return (value - truncated) / (value + truncated) < 1e-9;
}

std::string pattern_error(const std::string& pattern) {
  return compile(pattern).error;
}

Result check_string(const Json& data, const Json& schema, const std::string& path) {
  const std::string& text = data.get_ref<const std::string&>();
  const Json* max_length = member(schema, "maxLength");
  if (max_length && max_length->is_number() && rune_count(text) > as_int(*max_length)) {
    const auto max = as_int(*max_length);
    return Result::with_error(
        error_at(Code::TooLong, path, data,
                 path + " in body should be at most " + std::to_string(max) + " chars long", max));
  }
  const Json* min_length = member(schema, "minLength");
  if (min_length && min_length->is_number() && rune_count(text) < as_int(*min_length)) {
    return Result::with_error(error_at(Code::TooShort, path, data,
                                       path + " in body should be at least " +
                                           std::to_string(as_int(*min_length)) + " chars long"));
  }
  const std::string pattern = string_member(schema, "pattern");
  if (!pattern.empty()) {
    const CompiledPattern& compiled = compile(pattern);
    if (!compiled.regex) {
      return Result::with_error(error_at(Code::Pattern, path, data,
                                         path + " in body should match '" + pattern +
                                             ", but pattern is invalid: " + compiled.error + "'"));
    }
    if (!std::regex_search(text, *compiled.regex)) {
      return Result::with_error(
          error_at(Code::Pattern, path, data, path + " in body should match '" + pattern + "'"));
    }
  }
  return {};
}

Result check_format(const Json& data, const std::string& format, const std::string& path) {
  const std::string& text = data.get_ref<const std::string&>();
  if (format_accepts(format, text)) return {};
  return Result::with_error(invalid_type(path, format, text));
}

Result check_number(const Json& data, const Json& schema, const std::string& path) {
  Result result;
  const bool integer = kind_of(data) == Kind::Int;
  const double value = as_float(data);
  const std::int64_t int_value = integer ? as_int(data) : 0;
  if (auto factor = number_member(schema, "multipleOf")) {
    // An integer is divided by int64(factor); a factor that truncates to 0 would make Go
    // panic, so it is checked as a float instead.
    const auto int_factor = to_int64(*factor);
    const bool as_integer = integer && int_factor != 0;
    if (*factor < 0 && (as_integer ? int_factor < 0 : true)) {
      const Json shown = as_integer ? Json(int_factor) : Json(*factor);
      result.add(error_at(
          Code::MultipleOfMustBePositive, path, shown,
          "factor MultipleOf declared for " + path + " must be positive: " + go_number(shown)));
    } else if (as_integer ? int_value % int_factor != 0
                          : !is_json_integer(*factor < 1 ? 1 / *factor * value : value / *factor)) {
      result.add(
          error_at(Code::MultipleOf, path, data,
                   path + " in body should be a multiple of " + bound_text(*factor, as_integer)));
    }
  }
  if (auto minimum = number_member(schema, "minimum")) {
    const bool exclusive = is_true(schema, "exclusiveMinimum");
    const auto bound = to_int64(*minimum);
    const bool fails = integer ? (exclusive ? int_value <= bound : int_value < bound)
                               : (exclusive ? value <= *minimum : value < *minimum);
    if (fails) {
      result.add(error_at(Code::Min, path, data,
                          path + " in body should be greater than " +
                              (exclusive ? "" : "or equal to ") + bound_text(*minimum, integer)));
    }
  }
  if (auto maximum = number_member(schema, "maximum")) {
    const bool exclusive = is_true(schema, "exclusiveMaximum");
    const auto bound = to_int64(*maximum);
    const bool fails = integer ? (exclusive ? int_value >= bound : int_value > bound)
                               : (exclusive ? value >= *maximum : value > *maximum);
    if (fails) {
      result.add(error_at(Code::Max, path, data,
                          path + " in body should be less than " +
                              (exclusive ? "" : "or equal to ") + bound_text(*maximum, integer)));
    }
  }
  ++result.match_count;
  return result;
}

Result check_enum(const Json& data, const Json& schema, const std::string& path) {
  const Json* values = member(schema, "enum");
  if (!values || !values->is_array() || values->empty()) return {};
  for (const auto& allowed : *values) {
    if (allowed == data) return {};  // numbers compare by value, as Go converts int64 to float64
  }
  std::vector<Json> list(values->begin(), values->end());
  const std::string message = path + " in body should be one of " + go_list(list);
  return Result::with_error({Code::Enum, path, data, std::move(list), -1, message});
}

}  // namespace respool::sandbox::schema::detail
