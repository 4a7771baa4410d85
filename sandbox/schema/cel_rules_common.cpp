#include <map>
#include <mutex>

#include "sandbox/schema/cel_check.hpp"
#include "sandbox/schema/cel_rules.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

std::shared_ptr<const ParsedRule> parse_rule(const std::string& text) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const ParsedRule>> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(text);
  if (it != cache.end()) return it->second;
  auto rule = std::make_shared<ParsedRule>();
  rule->parsed = cel::parse(text);
  if (rule->parsed.expr) {
    CheckResult checked = check_expression(*rule->parsed.expr, dyn_type());
    rule->uses_old_self = checked.uses_old_self;
    rule->unsupported = checked.unsupported;
  }
  if (cache.size() > 4096) cache.clear();
  cache.emplace(text, rule);
  return rule;
}

Rule rule_of(const Json& json) {
  Rule r;
  r.rule = string_member(json, "rule");
  r.message = string_member(json, "message");
  r.message_expression = string_member(json, "messageExpression");
  r.field_path = string_member(json, "fieldPath");
  if (const Json* reason = member(json, "reason"); reason && reason->is_string()) {
    r.has_reason = true;
    r.reason = reason->get<std::string>();
  }
  if (const Json* opt = member(json, "optionalOldSelf"); opt && opt->is_boolean()) {
    r.has_optional_old_self = true;
    r.optional_old_self = opt->get<bool>();
  }
  return r;
}

std::string trim(const std::string& s) {
  const char* space = " \t\n\r\f\v";
  auto b = s.find_first_not_of(space);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(space) - b + 1);
}

bool has_newline(const std::string& s) {
  return s.find_first_of("\n\r") != std::string::npos;
}

std::optional<std::string> normalize_field_path(const std::string& path, const Json& schema) {
  std::string out;
  const Json* node = &schema;
  auto step = [&](const std::string& name) -> bool {
    if (properties_of(*node)) {
      const Json* p = property(*node, name);
      if (!p) return false;
      out += out.empty() ? name : "." + name;
      node = p;
      return true;
    }
    Additional add = additional_of(*node);
    if (!add.schema) return false;
    out += "[" + name + "]";
    node = add.schema;
    return true;
  };
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      std::size_t end = path.find_first_of(".[]", i + 1);
      if (end == std::string::npos) end = path.size();
      if (end == i + 1 || !step(path.substr(i + 1, end - i - 1))) return std::nullopt;
      i = end;
    } else if (path[i] == '[') {
      if (i + 1 >= path.size() || path[i + 1] != '\'') return std::nullopt;
      std::string name;
      std::size_t k = i + 2;
      for (; k < path.size() && path[k] != '\''; ++k) {
        if (path[k] == '\\' && k + 1 < path.size()) ++k;
        name += path[k];
      }
      if (k + 1 >= path.size() || path[k + 1] != ']' || !step(name)) return std::nullopt;
      i = k + 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace respool::sandbox::schema::detail
