#pragma once
// What the CRD-time check and the object-time evaluation of x-kubernetes-validations share:
// rules parsed once and kept, and the rule's own words in messages.

#include <memory>
#include <set>
#include <string>

#include "sandbox/cel/parser.hpp"
#include "sandbox/schema/schema.hpp"

namespace respool::sandbox::schema::detail {

// The limits of k8s.io/apiserver/pkg/apis/cel: per expression evaluation, per object, and the
// size of a messageExpression's result.
inline constexpr std::uint64_t kPerCallLimit = 1000000;
inline constexpr std::uint64_t kRuntimeCostBudget = 10000000;
inline constexpr std::size_t kMaxMessageExpressionBytes = 5 * 1024;

struct ParsedRule {
  cel::ParseResult parsed;
  bool uses_old_self = false;         // names oldSelf (outside a variable of that name)
  std::set<std::string> unsupported;  // Kubernetes functions the sandbox lacks
};

// The rule's expression parsed (cached by its text).
std::shared_ptr<const ParsedRule> parse_rule(const std::string& text);

// The rule's fields as apiextensions' ValidationRule has them.
struct Rule {
  std::string rule, message, message_expression, reason, field_path;
  bool has_reason = false, has_optional_old_self = false, optional_old_self = false;
};
Rule rule_of(const Json& rule);
std::string trim(const std::string& s);
bool has_newline(const std::string& s);

// A fieldPath (".spec.x", ".m['a.b']") against the node's schema as the field path it names
// relative to the node ("spec.x", "m[a.b]"), or nullopt when it does not name a field.
std::optional<std::string> normalize_field_path(const std::string& path, const Json& schema);

}  // namespace respool::sandbox::schema::detail
