// x-kubernetes-validations evaluated over a custom resource, as apiextensions' schema/cel
// Validator does: at every schema node where rules sit, with self (and oldSelf where the old
// object has a correlated value), a cost budget per call and per object, messages and
// messageExpressions, reason and fieldPath, and ratcheting of unchanged values on update.

#include "sandbox/schema/cel_rules.hpp"
#include "sandbox/cel/eval.hpp"
#include "sandbox/schema/cel_types.hpp"
#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {
namespace {

struct Stop {};  // the budget is spent: no further rules run

bool blocks_rules(const FieldError& e) {
  return e.reason == "FieldValueNotSupported" || e.reason == "FieldValueRequired" ||
         e.reason == "FieldValueTooLong" || e.reason == "FieldValueTooMany" ||
         e.reason == "FieldValueTypeInvalid";
}

// Whether any node of the schema has rules (the server builds no CEL validator otherwise, so
// nothing is said about rules then).
bool has_rules(const Json& schema) {
  if (!schema.is_object()) return false;
  const Json* list = member(schema, "x-kubernetes-validations");
  if (list && list->is_array() && !list->empty()) return true;
  if (const Json* props = properties_of(schema)) {
    for (const Json& p : *props) {
      if (has_rules(p)) return true;
    }
  }
  if (const Json* items = items_of(schema); items && has_rules(*items)) return true;
  Additional add = additional_of(schema);
  return add.schema && has_rules(*add.schema);
}

std::string shown(const std::string& path) {
  return path.empty() ? "<nil>" : path;
}

// The value of `key` in a list item of an x-kubernetes-list-type=map list.
const Json* matching_item(const Json& old_list, const Json& item, const Json& keys) {
  if (!old_list.is_array() || !item.is_object() || !keys.is_array()) return nullptr;
  for (const Json& candidate : old_list) {
    if (!candidate.is_object()) continue;
    bool same = true;
    for (const Json& k : keys) {
      if (!k.is_string()) continue;
      auto a = item.find(k.get<std::string>());
      auto b = candidate.find(k.get<std::string>());
      bool ha = a != item.end(), hb = b != candidate.end();
      if (ha != hb || (ha && *a != *b)) same = false;
    }
    if (same) return &candidate;
  }
  return nullptr;
}

struct Evaluation {
  bool update;
  std::vector<FieldError>& errors;
  std::vector<std::string>& warnings;
  std::int64_t remaining = static_cast<std::int64_t>(kRuntimeCostBudget);

  void add(FieldError e, bool ratchet) {
    if (ratchet) {
      warnings.push_back(e.field + ": " + e.message);
    } else {
      errors.push_back(std::move(e));
    }
  }

  FieldError for_reason(const Rule& r, const std::string& path, const std::string& type,
                        const std::string& detail) {
    if (r.reason == "FieldValueForbidden") return forbidden(shown(path), detail);
    if (r.reason == "FieldValueRequired") return required(shown(path), detail);
    if (r.reason == "FieldValueDuplicate") {
      return {"FieldValueDuplicate", shown(path), "Duplicate value: " + Json(type).dump()};
    }
    return invalid(shown(path), type, detail);
  }

  std::string rule_text(const Rule& r) {
    return r.message.empty() ? trim(r.rule) : trim(r.message);
  }

  cel::EvalResult run(const cel::Expr& expr, const cel::Bindings& vars) {
    cel::EvalOptions options;
    options.cost_limit = kPerCallLimit;
    return cel::evaluate(expr, vars, options);
  }

  void node(const Json& schema, const Json& value, const Json* old, const std::string& path,
            bool resource_root, bool unchanged) {
    if (value.is_null() || !schema.is_object()) return;
    rules(schema, value, old, path, resource_root, unchanged);
    std::string list_type = string_member(schema, "x-kubernetes-list-type");
    if (value.is_object()) {
      Additional add = additional_of(schema);
      bool atomic = string_member(schema, "x-kubernetes-map-type") == "atomic";
      for (auto it = value.begin(); it != value.end(); ++it) {
        const Json* sub = property(schema, it.key());
        bool is_property = sub != nullptr;
        if (!sub) sub = add.schema;
        if (!sub) continue;
        const Json* child_old = nullptr;
        if (old && old->is_object() && (is_property || !atomic)) {
          auto o = old->find(it.key());
          if (o != old->end()) child_old = &*o;
        }
        bool child_unchanged = child_old ? *child_old == it.value() : unchanged;
        std::string at = is_property ? child(path, it.key()) : key(path, it.key());
        node(*sub, it.value(), child_old, at, embedded(*sub), child_unchanged);
      }
    } else if (value.is_array()) {
      const Json* items = items_of(schema);
      if (!items) return;
      const Json* keys = member(schema, "x-kubernetes-list-map-keys");
      for (std::size_t i = 0; i < value.size(); ++i) {
        const Json* item_old = nullptr;
        if (old && list_type == "map" && keys) item_old = matching_item(*old, value[i], *keys);
        bool item_unchanged = item_old ? *item_old == value[i] : unchanged;
        node(*items, value[i], item_old, index(path, i), embedded(*items), item_unchanged);
      }
    }
  }

  void rules(const Json& schema, const Json& value, const Json* old, const std::string& path,
             bool resource_root, bool unchanged) {
    const Json* list = member(schema, "x-kubernetes-validations");
    if (!list || !list->is_array() || list->empty()) return;
    std::string type = type_of(schema);
    if (remaining <= 0) {
      errors.push_back(invalid(shown(path), type,
                               "validation failed due to running out of cost budget, no further "
                               "validation rules will be run"));
      throw Stop{};
    }
    cel::Value self = to_value(value, schema, resource_root);
    cel::Value old_self = old ? to_value(*old, schema, resource_root) : cel::Value();
    for (const Json& json : *list) {
      Rule r = rule_of(json);
      if (trim(r.rule).empty()) continue;
      auto parsed = parse_rule(r.rule);
      if (!parsed->parsed.expr) {
        errors.push_back(
            invalid(shown(path), type,
                    "rule compile error: " + cel::format_issues(r.rule, parsed->parsed.issues)));
        continue;
      }
      if (parsed->uses_old_self && !old && !r.optional_old_self) continue;
      bool ratchet = update && unchanged && !parsed->uses_old_self;
      if (!parsed->unsupported.empty()) {
        std::string names;
        for (const std::string& f : parsed->unsupported) {
          names += (names.empty() ? "" : ", ") + f;
        }
        add(invalid(shown(path), type,
                    "rule uses " + names +
                        ", which the respool sandbox does not evaluate, so "
                        "the object cannot be validated against it: " +
                        rule_text(r)),
            ratchet);
        continue;
      }
      cel::Bindings vars{{"self", self}};
      if (parsed->uses_old_self) {
        if (r.optional_old_self) {
          vars["oldSelf"] = old ? cel::Value::optional_of(old_self) : cel::Value::optional_none();
        } else {
          vars["oldSelf"] = old_self;
        }
      }
      cel::EvalResult result = run(*parsed->parsed.expr, vars);
      if (result.cost_exceeded) {
        errors.push_back(invalid(shown(path), type,
                                 "'" + std::string(cel::kCostExceeded) +
                                     "': no further validation rules will be run due to call "
                                     "cost exceeds limit for rule: " +
                                     rule_text(r)));
        throw Stop{};
      }
      if (static_cast<std::int64_t>(result.cost) > remaining) {
        errors.push_back(invalid(shown(path), type,
                                 "validation failed due to running out of cost budget, no "
                                 "further validation rules will be run"));
        throw Stop{};
      }
      remaining -= static_cast<std::int64_t>(result.cost);
      const cel::Value& v = result.value;
      if (v.is_error()) {
        if (v.text().rfind("no such overload", 0) == 0) {
          errors.push_back(invalid(shown(path), type,
                                   "'" + v.text() +
                                       "': call arguments did not match a supported operator, "
                                       "function or macro signature for rule: " +
                                       rule_text(r)));
        } else {
          errors.push_back(
              invalid(shown(path), type, v.text() + " evaluating rule: " + rule_text(r)));
        }
        continue;
      }
      if (v.is(cel::Kind::Bool) && v.as_bool()) continue;
      std::string at = path;
      if (!r.field_path.empty()) {
        auto normalized = normalize_field_path(r.field_path, schema);
        if (normalized && !normalized->empty()) {
          at = path.empty()
                   ? *normalized
                   : ((*normalized)[0] == '[' ? path + *normalized : path + "." + *normalized);
        }
      }
      std::string detail = message(r, vars, path, type, ratchet);
      add(for_reason(r, at, type, detail), ratchet);
    }
  }

  // The message of a failed rule: its messageExpression's result when that evaluates to a
  // usable string, else its message, else "failed rule: <rule>".
  std::string message(const Rule& r, const cel::Bindings& vars, const std::string& path,
                      const std::string& type, bool ratchet) {
    std::string fallback = r.message.empty() ? "failed rule: " + trim(r.rule) : trim(r.message);
    if (trim(r.message_expression).empty()) return fallback;
    auto parsed = parse_rule(r.message_expression);
    if (!parsed->parsed.expr) return fallback;
    cel::EvalResult result = run(*parsed->parsed.expr, vars);
    if (result.cost_exceeded || static_cast<std::int64_t>(result.cost) > remaining) {
      add(invalid(shown(path), type,
                  result.cost_exceeded
                      ? "no further validation rules will be run due to call cost exceeds limit "
                        "for messageExpression: " +
                            Json(r.message_expression).dump()
                      : "messageExpression evaluation failed due to running out of cost budget, "
                        "no further validation rules will be run"),
          ratchet);
      throw Stop{};
    }
    remaining -= static_cast<std::int64_t>(result.cost);
    if (!result.value.is(cel::Kind::String)) return fallback;
    std::string text = trim(result.value.text());
    if (text.empty() || text.size() > kMaxMessageExpressionBytes || has_newline(text)) {
      return fallback;
    }
    return text;
  }
};

}  // namespace
}  // namespace respool::sandbox::schema::detail

namespace respool::sandbox::schema {

std::vector<FieldError> validate_rules(const Json& object, const Json* old, const Json& schema,
                                       const std::vector<FieldError>& prior,
                                       std::vector<std::string>& warnings) {
  std::vector<FieldError> errors;
  if (!detail::has_rules(schema)) return errors;
  for (const FieldError& e : prior) {
    if (detail::blocks_rules(e)) {
      errors.push_back(detail::invalid("<nil>", Json("null"),
                                       "some validation rules were not checked because the "
                                       "object was invalid; correct the existing errors to "
                                       "complete validation"));
      return errors;
    }
  }
  detail::Evaluation eval{old != nullptr, errors, warnings};
  try {
    eval.node(schema, object, old, "", true, old && *old == object);
  } catch (const detail::Stop&) {
  }
  return errors;
}

}  // namespace respool::sandbox::schema
