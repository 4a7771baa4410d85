// ValidateCustomResourceDefinitionOpenAPISchema (apiextensions-apiserver's
// pkg/apis/apiextensions/validation): the OpenAPI constructs a CRD schema may not use, and the
// rules of x-kubernetes-list-type, -list-map-keys, -map-type and -validations.

#include <algorithm>
#include <set>

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/go_format.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

namespace {

struct Context {
  bool allow_defaults = true;
  std::string disallow_reason;
  bool inside_meta = false;
};

std::vector<std::string> strings_in(const Json& node, const char* name) {
  std::vector<std::string> out;
  const Json* list = member(node, name);
  if (list && list->is_array()) {
    for (const auto& item : *list) {
      if (item.is_string()) out.push_back(item.get<std::string>());
    }
  }
  return out;
}

// fmt's %#v of a []string.
std::string go_string_slice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + go_quote(values[i]);
  return out + "}";
}

bool has_line_break(const std::string& text) {
  return text.find_first_of("\r\n") != std::string::npos;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n\v\f") - first + 1);
}

class SchemaChecks {
 public:
  Errors errors;

  void check(const Json& node, const std::string& path, const Context& context, bool root) {
    if (!node.is_object()) return;
    standard(node, path, context);
    if (is_true(node, "uniqueItems")) {
      errors.push_back(forbidden(
          child(path, "uniqueItems"),
          "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
    }
    const Additional additional = additional_of(node);
    const Json* properties = properties_of(node);
    if (additional.present) {
      if (properties && !properties->empty() && (!additional.allows || additional.schema)) {
        errors.push_back(forbidden(child(path, "additionalProperties"),
                                   "additionalProperties and properties are mutual exclusive"));
      }
      Context sub = context;
      if (context.inside_meta) {
        sub.allow_defaults = false;
        sub.disallow_reason = "inside additionalProperties applying to object metadata";
      }
      if (additional.schema)
        check(*additional.schema, child(path, "additionalProperties"), sub, false);
    }
    if (properties) {
      for (const auto& [name, sub_schema] : properties->items()) {
        Context sub = context;
        if ((root || embedded(node)) && is_meta_field(name)) {
          sub.inside_meta = true;
          if (root) {
            sub.allow_defaults = false;
            sub.disallow_reason = "in top-level " + name;
          }
        }
        check(sub_schema, key(child(path, "properties"), name), sub, false);
      }
    }
    if (const Json* negated = member(node, "not"))
      check(*negated, child(path, "not"), context, false);
    for (const char* junctor : {"allOf", "oneOf", "anyOf"}) {
      const Json* parts = member(node, junctor);
      if (!parts || !parts->is_array()) continue;
      for (std::size_t i = 0; i < parts->size(); ++i)
        check((*parts)[i], index(child(path, junctor), i), context, false);
    }
    for (const char* keyed : {"definitions", "dependencies"}) {
      const Json* entries = member(node, keyed);
      if (!entries || !entries->is_object()) continue;
      for (const auto& [name, sub_schema] : entries->items())
        check(sub_schema, key(child(path, keyed), name), context, false);
    }
    if (const Json* items = member(node, "items")) {
      if (items->is_object()) check(*items, child(path, "items"), context, false);
      if (items->is_array()) {
        for (std::size_t i = 0; i < items->size(); ++i)
          check((*items)[i], index(child(path, "items"), i), context, false);
      }
    }
    if (const Json* preserve = member(node, "x-kubernetes-preserve-unknown-fields");
        preserve && preserve->is_boolean() && !preserve->get<bool>()) {
      errors.push_back(invalid(child(path, "x-kubernetes-preserve-unknown-fields"), false,
                               "must be true or undefined"));
    }
    map_type(node, path);
    list_type(node, path);
    validations(node, path);
  }

 private:
  // specStandardValidatorV3.validate
  void standard(const Json& node, const std::string& path, const Context& context) {
    static const std::set<std::string> types = {"array",  "boolean", "integer",
                                                "number", "object",  "string"};
    const std::string type = type_of(node);
    if (!type.empty() && !types.contains(type)) {
      errors.push_back(not_supported(child(path, "type"), type, {types.begin(), types.end()}));
    }
    if (default_of(node) && !context.allow_defaults) {
      std::string detail = "must not be set";
      if (!context.disallow_reason.empty()) detail += " " + context.disallow_reason;
      errors.push_back(forbidden(child(path, "default"), detail));
    }
    if (!string_member(node, "id").empty())
      errors.push_back(forbidden(child(path, "id"), "id is not supported"));
    if (member(node, "additionalItems")) {
      errors.push_back(
          forbidden(child(path, "additionalItems"), "additionalItems is not supported"));
    }
    for (const char* name : {"patternProperties", "definitions"}) {
      const Json* value = member(node, name);
      if (value && value->is_object() && !value->empty()) {
        errors.push_back(forbidden(child(path, name), std::string(name) + " is not supported"));
      }
    }
    if (member(node, "dependencies"))
      errors.push_back(forbidden(child(path, "dependencies"), "dependencies is not supported"));
    if (member(node, "$ref"))
      errors.push_back(forbidden(child(path, "$ref"), "$ref is not supported"));
    if (type == "null") {
      errors.push_back(forbidden(child(path, "type"),
                                 "type cannot be set to null, use nullable as an alternative"));
    }
    if (const Json* items = member(node, "items"); items && items->is_array() && !items->empty()) {
      errors.push_back(
          forbidden(child(path, "items"), "items must be a schema object and not an array"));
    }
    if (context.inside_meta && embedded(node)) {
      errors.push_back(forbidden(child(path, "x-kubernetes-embedded-resource"),
                                 "must not be used inside of resource meta"));
    }
  }

  void map_type(const Json& node, const std::string& path) {
    const Json* value = member(node, "x-kubernetes-map-type");
    if (!value) return;
    const std::string type = type_of(node);
    const std::string map_type = value->is_string() ? value->get<std::string>() : "";
    if (type != "object") {
      const char* detail = "must be object if x-kubernetes-map-type is specified";
      errors.push_back(type.empty() ? required(child(path, "type"), detail)
                                    : invalid(child(path, "type"), type, detail));
    }
    if (map_type != "atomic" && map_type != "granular") {
      errors.push_back(
          not_supported(child(path, "x-kubernetes-map-type"), map_type, {"atomic", "granular"}));
    }
  }

  void list_type(const Json& node, const std::string& path) {
    const Json* value = member(node, "x-kubernetes-list-type");
    const std::string list_type = value && value->is_string() ? value->get<std::string>() : "";
    const std::string type = type_of(node);
    const Json* items = items_of(node);
    if (value && type != "array") {
      const char* detail = "must be array if x-kubernetes-list-type is specified";
      errors.push_back(type.empty() ? required(child(path, "type"), detail)
                                    : invalid(child(path, "type"), type, detail));
    } else if (value && list_type == "set" && items) {
      const Json* item_list_type = member(*items, "x-kubernetes-list-type");
      const Json* item_map_type = member(*items, "x-kubernetes-map-type");
      const std::string shown = item_list_type && item_list_type->is_string()
                                    ? go_quote(item_list_type->get<std::string>())
                                    : "null";
      const char* detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
      if (type_of(*items) == "array" && item_list_type && *item_list_type != "atomic") {
        errors.push_back(
            invalid_rendered(child(child(path, "items"), "x-kubernetes-list-type"), shown, detail));
      }
      if (type_of(*items) == "object" && (!item_map_type || *item_map_type != "atomic")) {
        errors.push_back(
            invalid_rendered(child(child(path, "items"), "x-kubernetes-map-type"), shown, detail));
      }
    }
    if (value && list_type != "atomic" && list_type != "set" && list_type != "map") {
      errors.push_back(not_supported(child(path, "x-kubernetes-list-type"), list_type,
                                     {"atomic", "set", "map"}));
    }
    const auto keys = strings_in(node, "x-kubernetes-list-map-keys");
    if (!keys.empty()) {
      const char* detail = "must be map if x-kubernetes-list-map-keys is non-empty";
      if (!value)
        errors.push_back(required(child(path, "x-kubernetes-list-type"), detail));
      else if (list_type != "map")
        errors.push_back(invalid(child(path, "x-kubernetes-list-type"), list_type, detail));
    }
    if (value && list_type == "map") map_list(node, path, keys, items);
    if (value && (list_type == "set" || list_type == "map") && items)
      map_set_keys(path, list_type, keys, *items);
  }

  void map_list(const Json& node, const std::string& path, const std::vector<std::string>& keys,
                const Json* items) {
    if (keys.empty()) {
      errors.push_back(required(child(path, "x-kubernetes-list-map-keys"),
                                "must not be empty if x-kubernetes-list-type is map"));
    }
    if (!member(node, "items")) {
      errors.push_back(
          required(child(path, "items"), "must have a schema if x-kubernetes-list-type is map"));
      return;
    }
    if (!items) {
      errors.push_back(invalid(child(path, "items"), *member(node, "items"),
                               "must only have a single schema if x-kubernetes-list-type is map"));
      return;
    }
    const std::string item_type = type_of(*items);
    if (item_type != "object") {
      errors.push_back(invalid(child(child(path, "items"), "type"), item_type,
                               "must be object if parent array's x-kubernetes-list-type is map"));
      return;
    }
    std::set<std::string> seen;
    for (const auto& name : keys) {
      if (const Json* field = property(*items, name)) {
        const std::string field_type = type_of(*field);
        if (field_type == "array" || field_type == "object") {
          errors.push_back(invalid(
              child(key(child(child(path, "items"), "properties"), name), "type"), item_type,
              "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
      } else {
        errors.push_back(invalid_rendered(child(path, "x-kubernetes-list-map-keys"),
                                          go_string_slice(keys),
                                          "entries must all be names of item properties"));
      }
      if (!seen.insert(name).second) {
        errors.push_back(invalid_rendered(child(path, "x-kubernetes-list-map-keys"),
                                          go_string_slice(keys),
                                          "must not contain duplicate entries"));
      }
    }
  }

  // validateMapListKeysMapSet: items of a set or map list, and map keys, are never null, and a
  // map key is required or defaulted.
  void map_set_keys(const std::string& path, const std::string& list_type,
                    const std::vector<std::string>& keys, const Json& items) {
    const std::string items_path = child(path, "items");
    if (nullable(items)) {
      errors.push_back(forbidden(child(items_path, "nullable"),
                                 "cannot be nullable when x-kubernetes-list-type is " + list_type));
    }
    if (list_type != "map") return;
    const auto required_names = strings_in(items, "required");
    for (const auto& name : keys) {
      const Json* field = property(items, name);
      if (!field) continue;
      const std::string field_path = key(child(items_path, "properties"), name);
      const bool is_required =
          std::find(required_names.begin(), required_names.end(), name) != required_names.end();
      if (!is_required && !default_of(*field)) {
        errors.push_back(required(child(field_path, "default"),
                                  "this property is in x-kubernetes-list-map-keys, so it must have "
                                  "a default or be a required property"));
      }
      if (nullable(*field)) {
        errors.push_back(
            forbidden(child(field_path, "nullable"),
                      "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
      }
    }
  }

  // The shape of x-kubernetes-validations rules; the rules themselves (CEL) are not compiled.
  void validations(const Json& node, const std::string& path) {
    const Json* rules = member(node, "x-kubernetes-validations");
    if (!rules || !rules->is_array()) return;
    for (std::size_t i = 0; i < rules->size(); ++i) {
      const std::string rule_path = index(child(path, "x-kubernetes-validations"), i);
      const std::string rule = string_member((*rules)[i], "rule");
      const std::string message = string_member((*rules)[i], "message");
      if (trimmed(rule).empty()) {
        errors.push_back(required(child(rule_path, "rule"), "rule is not specified"));
      } else if (!message.empty() && trimmed(message).empty()) {
        errors.push_back(invalid(child(rule_path, "message"), message,
                                 "message must be non-empty if specified"));
      } else if (has_line_break(trimmed(message))) {
        errors.push_back(
            invalid(child(rule_path, "message"), message, "message must not contain line breaks"));
      } else if (has_line_break(trimmed(rule)) && trimmed(message).empty()) {
        errors.push_back(required(child(rule_path, "message"),
                                  "message must be specified if rule contains line breaks"));
      }
    }
  }
};

}  // namespace

Errors openapi_schema_errors(const Json& schema, const std::string& path) {
  SchemaChecks checks;
  checks.check(schema, path, Context{}, true);
  return checks.errors;
}

}  // namespace respool::sandbox::schema::detail
