// Label selector requirements: validation as labels.NewRequirement and matching as
// Requirement.Matches.

#include <algorithm>
#include <charconv>
#include <optional>

#include "apimachinery/field_errors.hpp"
#include "apimachinery/go_format.hpp"
#include "apimachinery/names.hpp"
#include "operator/kube/selector.hpp"
#include "operator/kube/selector_requirement.hpp"

namespace respool::kube {

using apimachinery::aggregate_errors;
using apimachinery::go_quote;
using apimachinery::go_string_slice;
using apimachinery::invalid_value_error;
using apimachinery::label_value_errors;
using apimachinery::qualified_name_errors;
namespace {

using Op = LabelRequirement::Op;

std::optional<std::int64_t> parse_int64(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

bool LabelRequirement::matches(const Lookup& labels) const {
  const auto has_value = [this](std::string_view value) {
    return std::ranges::find(values, value) != values.end();
  };
  const std::optional<std::string_view> value = labels(key);
  switch (op) {
    case Op::Equals:
    case Op::In:
      return value && has_value(*value);
    case Op::NotEquals:
    case Op::NotIn:
      return !value || !has_value(*value);
    case Op::Exists:
      return value.has_value();
    case Op::DoesNotExist:
      return !value.has_value();
    case Op::GreaterThan:
    case Op::LessThan: {
      if (!value || values.size() != 1) return false;
      const auto actual = parse_int64(*value);
      const auto bound = parse_int64(values.front());
      if (!actual || !bound) return false;
      return op == Op::GreaterThan ? *actual > *bound : *actual < *bound;
    }
  }
  return false;
}

std::expected<LabelRequirement, std::string> make_requirement(std::string key, Op op,
                                                              std::vector<std::string> values) {
  std::vector<std::string> errors;
  if (auto key_errors = qualified_name_errors(key); !key_errors.empty()) {
    errors.push_back(invalid_value_error("key", go_quote(key), join_errors(key_errors)));
  }
  const std::string values_text = go_string_slice(values);
  switch (op) {
    case Op::In:
    case Op::NotIn:
      if (values.empty()) {
        errors.push_back(invalid_value_error(
            "values", values_text, "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case Op::Equals:
    case Op::NotEquals:
      if (values.size() != 1) {
        errors.push_back(invalid_value_error(
            "values", values_text, "exact-match compatibility requires one single value"));
      }
      break;
    case Op::Exists:
    case Op::DoesNotExist:
      if (!values.empty()) {
        errors.push_back(invalid_value_error(
            "values", values_text, "values set must be empty for exists and does not exist"));
      }
      break;
    case Op::GreaterThan:
    case Op::LessThan:
      if (values.size() != 1) {
        errors.push_back(invalid_value_error(
            "values", values_text, "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!parse_int64(values[i])) {
          errors.push_back(invalid_value_error("values[" + std::to_string(i) + "]",
                                               go_quote(values[i]),
                                               "for 'Gt', 'Lt' operators, the value must be an "
                                               "integer"));
        }
      }
      break;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (auto value_errors = label_value_errors(values[i]); !value_errors.empty()) {
      errors.push_back(invalid_value_error("values[" + std::to_string(i) + "][" + key + "]",
                                           go_quote(values[i]), join_errors(value_errors)));
    }
  }
  if (!errors.empty()) return std::unexpected(aggregate_errors(errors));
  return LabelRequirement{std::move(key), op, std::move(values)};
}

std::string join_errors(const std::vector<std::string>& errors) {
  std::string out;
  for (const std::string& error : errors) {
    if (!out.empty()) out += "; ";
    out += error;
  }
  return out;
}

Lookup json_lookup(const nlohmann::json& labels) {
  return [&labels](std::string_view key) -> std::optional<std::string_view> {
    if (!labels.is_object()) return std::nullopt;
    const auto it = labels.find(key);
    if (it == labels.end() || !it->is_string()) return std::nullopt;
    return std::string_view(it->get_ref<const std::string&>());
  };
}

}  // namespace respool::kube
