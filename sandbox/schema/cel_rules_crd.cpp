// The checks the API server makes of x-kubernetes-validations when a CRD is written
// (apiextensions validation.go and schema/cel/compilation.go): the rule's fields, then each
// rule compiled against the schema node it sits on.

#include "sandbox/schema/cel_check.hpp"
#include "sandbox/schema/cel_rules.hpp"
#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/go_format.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {
namespace {

const std::vector<std::string> kReasons = {"FieldValueDuplicate", "FieldValueForbidden",
                                           "FieldValueInvalid", "FieldValueRequired"};

// fmt's %#v of the internal apiextensions.ValidationRule, as field.Invalid prints it.
std::string go_rule(const Rule& r) {
  return "apiextensions.ValidationRule{Rule:" + go_quote(r.rule) +
         ", Message:" + go_quote(r.message) +
         ", MessageExpression:" + go_quote(r.message_expression) + ", Reason:" +
         (r.has_reason ? "(*apiextensions.FieldValueErrorReason)(0xc000c1e000)"
                       : "(*apiextensions.FieldValueErrorReason)(nil)") +
         ", FieldPath:" + go_quote(r.field_path) + ", OptionalOldSelf:" +
         (r.has_optional_old_self ? "(*bool)(0xc000c1e008)" : "(*bool)(nil)") + "}";
}

struct Walk {
  std::vector<FieldError>& errors;
  std::vector<std::string>& warnings;

  void node(const Json& schema, const std::string& path, const std::string& uncorrelatable,
            bool resource_root) {
    if (!schema.is_object()) return;
    rules(schema, path, uncorrelatable, resource_root);
    if (const Json* props = properties_of(schema)) {
      for (auto it = props->begin(); it != props->end(); ++it) {
        node(it.value(), path + ".properties[" + it.key() + "]", uncorrelatable,
             embedded(it.value()));
      }
    }
    if (const Json* items = items_of(schema)) {
      std::string at = path + ".items";
      bool correlated = string_member(schema, "x-kubernetes-list-type") == "map";
      node(*items, at, uncorrelatable.empty() && !correlated ? at : uncorrelatable,
           embedded(*items));
    }
    if (Additional add = additional_of(schema); add.schema) {
      std::string at = path + ".additionalProperties";
      bool atomic = string_member(schema, "x-kubernetes-map-type") == "atomic";
      node(*add.schema, at, uncorrelatable.empty() && atomic ? at : uncorrelatable,
           embedded(*add.schema));
    }
  }

  void rules(const Json& schema, const std::string& path, const std::string& uncorrelatable,
             bool resource_root) {
    const Json* list = member(schema, "x-kubernetes-validations");
    if (!list || !list->is_array() || list->empty()) return;
    std::size_t before = errors.size();
    std::vector<Rule> parsed;
    for (std::size_t i = 0; i < list->size(); ++i) {
      Rule r = rule_of((*list)[i]);
      parsed.push_back(r);
      std::string at = path + ".x-kubernetes-validations[" + std::to_string(i) + "]";
      std::string msg = trim(r.message);
      if (trim(r.rule).empty()) {
        errors.push_back(required(at + ".rule", "rule is not specified"));
      } else if (!r.message.empty() && msg.empty()) {
        errors.push_back(
            invalid(at + ".message", r.message, "message must be non-empty if specified"));
      } else if (has_newline(msg)) {
        errors.push_back(
            invalid(at + ".message", r.message, "message must not contain line breaks"));
      } else if (has_newline(trim(r.rule)) && msg.empty()) {
        errors.push_back(
            required(at + ".message", "message must be specified if rule contains line breaks"));
      }
      if (!r.message_expression.empty() && trim(r.message_expression).empty()) {
        errors.push_back(required(at + ".messageExpression",
                                  "messageExpression must be non-empty if specified"));
      }
      if (r.has_reason && std::find(kReasons.begin(), kReasons.end(), r.reason) == kReasons.end()) {
        errors.push_back(not_supported(at + ".reason", r.reason, kReasons));
      }
      if (!r.field_path.empty() && trim(r.field_path).empty()) {
        errors.push_back(
            invalid(at + ".fieldPath", r.field_path, "fieldPath must be non-empty if specified"));
      }
      if (has_newline(r.field_path)) {
        errors.push_back(
            invalid(at + ".fieldPath", r.field_path, "fieldPath must not contain line breaks"));
      }
      if (!r.field_path.empty() && !normalize_field_path(r.field_path, schema)) {
        errors.push_back(
            invalid(at + ".fieldPath", r.field_path, "fieldPath must be a valid path"));
      }
    }
    // Rules compile only when the node's schema has no errors of its own (as the server).
    if (errors.size() != before) return;
    TypePtr self = schema_type(schema, resource_root);
    for (std::size_t i = 0; i < parsed.size(); ++i) {
      compile(parsed[i], self, path + ".x-kubernetes-validations[" + std::to_string(i) + "]", path,
              uncorrelatable);
    }
  }

  void compile(const Rule& r, const TypePtr& self, const std::string& at, const std::string& path,
               const std::string& uncorrelatable) {
    if (trim(r.rule).empty()) return;
    cel::ParseResult parsed = cel::parse(r.rule);
    CheckResult checked;
    if (parsed.expr) checked = check_expression(*parsed.expr, self);
    const auto& issues = parsed.expr ? checked.issues : parsed.issues;
    if (!issues.empty()) {
      errors.push_back(invalid_rendered(
          at + ".rule", go_rule(r), "compilation failed: " + cel::format_issues(r.rule, issues)));
    } else if (checked.result && checked.result->kind != DeclType::Kind::Bool) {
      errors.push_back(
          invalid_rendered(at + ".rule", go_rule(r), "cel expression must evaluate to a bool"));
    }
    if (!trim(r.message_expression).empty()) {
      cel::ParseResult mp = cel::parse(r.message_expression);
      CheckResult mc;
      if (mp.expr) mc = check_expression(*mp.expr, self);
      const auto& missues = mp.expr ? mc.issues : mp.issues;
      if (!missues.empty()) {
        errors.push_back(invalid_rendered(at + ".messageExpression", go_rule(r),
                                          "messageExpression compilation failed: " +
                                              cel::format_issues(r.message_expression, missues)));
      } else if (mc.result && mc.result->kind != DeclType::Kind::String) {
        errors.push_back(
            invalid_rendered(at + ".messageExpression", go_rule(r), "must evaluate to a string"));
      }
      checked.unsupported.insert(mc.unsupported.begin(), mc.unsupported.end());
    }
    if (!issues.empty()) return;
    if (checked.uses_old_self && !uncorrelatable.empty()) {
      errors.push_back(invalid(at + ".rule", r.rule,
                               "oldSelf cannot be used on the uncorrelatable portion of the "
                               "schema within " +
                                   uncorrelatable));
    } else if (!checked.uses_old_self && r.has_optional_old_self) {
      errors.push_back(invalid(at + ".optionalOldSelf", r.optional_old_self,
                               "may not be set if oldSelf is not used in rule"));
    }
    if (!checked.unsupported.empty()) {
      std::string names;
      for (const std::string& f : checked.unsupported)
        names += (names.empty() ? "" : ", ") + f;
      warnings.push_back(at + ".rule: uses " + names +
                         ", which the respool sandbox does not evaluate: objects this rule "
                         "checks will be refused (the rule " +
                         go_quote(r.rule) + " at " + path + ")");
    }
  }
};

}  // namespace
}  // namespace respool::sandbox::schema::detail

namespace respool::sandbox::schema {

std::vector<FieldError> check_validation_rules(const Json& schema, const std::string& path,
                                               std::vector<std::string>& warnings) {
  std::vector<FieldError> errors;
  detail::Walk walk{errors, warnings};
  walk.node(schema, path, "", true);
  return errors;
}

}  // namespace respool::sandbox::schema
