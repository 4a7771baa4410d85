// metav1.LabelSelector → LabelSelector, as metav1.LabelSelectorAsSelector converts it.

#include <algorithm>

#include "apimachinery/go_format.hpp"
#include "operator/kube/selector.hpp"
#include "operator/kube/selector_requirement.hpp"

namespace respool::kube {

using apimachinery::go_quote;
namespace {

using Op = LabelRequirement::Op;

std::optional<Op> expression_operator(std::string_view name) {
  if (name == "In") return Op::In;
  if (name == "NotIn") return Op::NotIn;
  if (name == "Exists") return Op::Exists;
  if (name == "DoesNotExist") return Op::DoesNotExist;
  return std::nullopt;
}

std::string json_type(const nlohmann::json& value) {
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_number()) return "number";
  return "null";
}

std::unexpected<std::string> decode_error(const nlohmann::json& value, std::string_view go_type) {
  return std::unexpected("json: cannot unmarshal " + json_type(value) + " into Go value of type " +
                         std::string(go_type));
}

std::expected<LabelRequirement, std::string> expression_requirement(const nlohmann::json& expr) {
  if (!expr.is_object()) return decode_error(expr, "v1.LabelSelectorRequirement");
  const auto field = [&expr](std::string_view name) -> const nlohmann::json* {
    const auto it = expr.find(name);
    return it == expr.end() || it->is_null() ? nullptr : &*it;
  };
  std::string key;
  if (const auto* k = field("key")) {
    if (!k->is_string()) return decode_error(*k, "string");
    key = k->get<std::string>();
  }
  std::string op_name;
  if (const auto* o = field("operator")) {
    if (!o->is_string()) return decode_error(*o, "v1.LabelSelectorOperator");
    op_name = o->get<std::string>();
  }
  std::vector<std::string> values;
  if (const auto* v = field("values")) {
    if (!v->is_array()) return decode_error(*v, "[]string");
    for (const auto& item : *v) {
      if (!item.is_string()) return decode_error(item, "string");
      values.push_back(item.get<std::string>());
    }
  }
  const auto op = expression_operator(op_name);
  if (!op) return std::unexpected(go_quote(op_name) + " is not a valid label selector operator");
  auto requirement = make_requirement(std::move(key), *op, std::move(values));
  if (requirement) {
    std::ranges::sort(requirement->values);
    const auto [first, last] = std::ranges::unique(requirement->values);
    requirement->values.erase(first, last);
  }
  return requirement;
}

}  // namespace

std::expected<LabelSelector, std::string> LabelSelector::from_json(const nlohmann::json& selector) {
  LabelSelector result;
  if (selector.is_null()) return result;
  if (!selector.is_object()) return decode_error(selector, "v1.LabelSelector");
  if (const auto it = selector.find("matchLabels"); it != selector.end() && !it->is_null()) {
    if (!it->is_object()) return decode_error(*it, "map[string]string");
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) return decode_error(value, "string");
      auto requirement = make_requirement(key, Op::Equals, {value.get<std::string>()});
      if (!requirement) return std::unexpected(requirement.error());
      result.requirements_.push_back(std::move(*requirement));
    }
  }
  if (const auto it = selector.find("matchExpressions"); it != selector.end() && !it->is_null()) {
    if (!it->is_array()) return decode_error(*it, "[]v1.LabelSelectorRequirement");
    for (const auto& expr : *it) {
      auto requirement = expression_requirement(expr);
      if (!requirement) return std::unexpected(requirement.error());
      result.requirements_.push_back(std::move(*requirement));
    }
  }
  std::ranges::stable_sort(result.requirements_, {}, &LabelRequirement::key);
  return result;
}

}  // namespace respool::kube
