// Go's %#v of the values field.Error prints as they are (no String() method on the value type):
// maps of strings and label selectors, as "Invalid value: ..." shows them.

#include "sandbox/apiserver/kinds_rules.hpp"

namespace respool::sandbox::kinds {
namespace {

// %#v of a []string: nil when missing, else the quoted items.
std::string go_string_list(const Json& v) {
  if (!v.is_array()) return "[]string(nil)";
  std::string out = "[]string{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + render_value(v[i].is_string() ? v[i] : Json(v[i].dump()));
  }
  return out + "}";
}

}  // namespace

std::string go_string_map(const Json& m) {
  if (!m.is_object()) return "map[string]string(nil)";
  // fmt prints a map's keys sorted, as the JSON object here holds them.
  std::string out = "map[string]string{";
  bool first = true;
  for (auto it = m.begin(); it != m.end(); ++it) {
    out += (first ? "" : ", ") + render_value(it.key()) + ":" + render_value(it.value());
    first = false;
  }
  return out + "}";
}

std::string go_label_selector(const Json& selector) {
  if (!selector.is_object()) return "null";
  std::string out =
      "v1.LabelSelector{MatchLabels:" + go_string_map(selector.value("matchLabels", Json())) +
      ", MatchExpressions:";
  const Json exprs = selector.value("matchExpressions", Json());
  if (!exprs.is_array()) return out + "[]v1.LabelSelectorRequirement(nil)}";
  out += "[]v1.LabelSelectorRequirement{";
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    const Json& e = exprs[i].is_object() ? exprs[i] : Json::object();
    out += std::string(i ? ", " : "") +
           "v1.LabelSelectorRequirement{Key:" + render_value(text_of(e, "key")) +
           ", Operator:" + render_value(text_of(e, "operator")) +
           ", Values:" + go_string_list(e.value("values", Json())) + "}";
  }
  return out + "}}";
}

}  // namespace respool::sandbox::kinds
