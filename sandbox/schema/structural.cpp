// ValidateStructural (apiextensions-apiserver's pkg/apiserver/schema/validation.go and
// complete.go) and check_structural, which puts the CRD schema checks together in the order
// the API server reports them.

#include <algorithm>

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

namespace {

enum class Level { Root, Item, Field };

bool is_int_or_string_any_of(const Json& node) {
  const Json* any_of = member(node, "anyOf");
  return any_of && any_of->is_array() && any_of->size() == 2 &&
         (*any_of)[0] == Json{{"type", "integer"}} && (*any_of)[1] == Json{{"type", "string"}};
}

bool is_int_or_string_all_of(const Json& node) {
  const Json* all_of = member(node, "allOf");
  return all_of && all_of->is_array() && !all_of->empty() && is_int_or_string_any_of((*all_of)[0]);
}

// A member set to something other than its zero value.
bool is_set(const Json& node, const char* name) {
  const Json* value = member(node, name);
  if (!value || value->is_null()) return false;
  if (value->is_boolean()) return value->get<bool>();
  if (value->is_string() || value->is_array() || value->is_object()) return !value->empty();
  return true;
}

std::vector<const Json*> listed(const Json& node, const char* name) {
  std::vector<const Json*> out;
  const Json* list = member(node, name);
  if (list && list->is_array()) {
    for (const auto& item : *list)
      out.push_back(&item);
  }
  return out;
}

class Structural {
 public:
  Errors errors;

  void invariants(const Json& node, Level level, const std::string& path) {
    if (!node.is_object()) return;
    const std::string type = type_of(node);
    const Additional additional = additional_of(node);
    if (type == "array" && !items_of(node))
      errors.push_back(required(child(path, "items"), "must be specified"));
    if (const Json* items = items_of(node)) invariants(*items, Level::Item, child(path, "items"));
    if (const Json* properties = properties_of(node)) {
      for (const auto& [name, sub] : properties->items()) {
        invariants(sub, Level::Field, key(child(path, "properties"), name));
      }
    }
    if (additional.present) {
      if (level == Level::Root) {
        errors.push_back(
            forbidden(child(path, "additionalProperties"), "must not be used at the root"));
      }
      if (additional.schema)
        invariants(*additional.schema, Level::Field, child(path, "additionalProperties"));
    }
    if (int_or_string(node) && preserves_unknown(node)) {
      errors.push_back(invalid(child(path, "x-kubernetes-preserve-unknown-fields"), true,
                               "must be false if x-kubernetes-int-or-string is true"));
    }
    if (int_or_string(node) && embedded(node)) {
      errors.push_back(invalid(child(path, "x-kubernetes-embedded-resource"), true,
                               "must be false if x-kubernetes-int-or-string is true"));
    }
    value_validation(node, is_int_or_string_any_of(node), is_int_or_string_all_of(node), path);
    if (embedded(node) && type != "object") {
      const char* detail = "must be object if x-kubernetes-embedded-resource is true";
      errors.push_back(type.empty() ? required(child(path, "type"), detail)
                                    : invalid(child(path, "type"), type, detail));
    } else if (type.empty() && !int_or_string(node) && !preserves_unknown(node)) {
      const char* detail = level == Level::Root   ? "must not be empty at the root"
                           : level == Level::Item ? "must not be empty for specified array items"
                                                  : "must not be empty for specified object fields";
      errors.push_back(required(child(path, "type"), detail));
    }
    if (embedded(node) && additional.present) {
      errors.push_back(forbidden(child(path, "additionalProperties"),
                                 "must not be used if x-kubernetes-embedded-resource is set"));
    }
    if (level == Level::Root && !type.empty() && type != "object") {
      errors.push_back(invalid(child(path, "type"), type, "must be object at the root"));
    }
    const bool check_metadata = level == Level::Root || embedded(node);
    for (const char* name : {"kind", "apiVersion"}) {
      const Json* field = property(node, name);
      if (field && check_metadata && type_of(*field) != "string") {
        errors.push_back(invalid(child(key(child(path, "properties"), name), "type"),
                                 type_of(*field), "must be string"));
      }
    }
    if (const Json* metadata = property(node, "metadata")) {
      metadata_invariants(*metadata, check_metadata, level,
                          key(child(path, "properties"), "metadata"));
    }
    const Json* properties = properties_of(node);
    if (embedded(node) && !preserves_unknown(node) && (!properties || properties->empty())) {
      errors.push_back(
          required(child(path, "properties"),
                   "must not be empty if x-kubernetes-embedded-resource is true without "
                   "x-kubernetes-preserve-unknown-fields"));
    }
  }

  // validateStructuralCompleteness: what the root's anyOf, allOf, oneOf and not specify must
  // be specified outside of them too.
  void completeness(const Json& node, const Json* structural, const std::string& s_path,
                    const std::string& v_path) {
    if (const Json* negated = member(node, "not"))
      nested_completeness(*negated, structural, s_path, child(v_path, "not"));
    for (const char* junctor : {"allOf", "anyOf", "oneOf"}) {
      auto parts = listed(node, junctor);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        nested_completeness(*parts[i], structural, s_path, index(child(v_path, junctor), i));
      }
    }
  }

 private:
  void value_validation(const Json& node, bool skip_any_of, bool skip_first_all_of_any_of,
                        const std::string& path) {
    if (!skip_any_of) {
      auto parts = listed(node, "anyOf");
      for (std::size_t i = 0; i < parts.size(); ++i)
        nested(*parts[i], false, index(child(path, "anyOf"), i));
    }
    auto all_of = listed(node, "allOf");
    for (std::size_t i = 0; i < all_of.size(); ++i) {
      nested(*all_of[i], skip_first_all_of_any_of && i == 0, index(child(path, "allOf"), i));
    }
    auto one_of = listed(node, "oneOf");
    for (std::size_t i = 0; i < one_of.size(); ++i)
      nested(*one_of[i], false, index(child(path, "oneOf"), i));
    if (const Json* negated = member(node, "not")) nested(*negated, false, child(path, "not"));
    const std::string pattern = string_member(node, "pattern");
    if (!pattern.empty()) {
      if (std::string error = pattern_error(pattern); !error.empty()) {
        errors.push_back(invalid(child(path, "pattern"), pattern,
                                 "must be a valid regular expression, but isn't: " + error));
      }
    }
  }

  // validateNestedValueValidation: inside anyOf, allOf, oneOf and not only value validations.
  void nested(const Json& node, bool skip_any_of, const std::string& path) {
    if (!node.is_object()) return;
    value_validation(node, skip_any_of, false, path);
    if (const Json* items = items_of(node)) nested(*items, false, child(path, "items"));
    if (const Json* properties = properties_of(node)) {
      for (const auto& [name, sub] : properties->items())
        nested(sub, false, key(child(path, "properties"), name));
      if (properties->contains("metadata")) {
        errors.push_back(forbidden(key(child(path, "properties"), "metadata"),
                                   "must not be specified in a nested context"));
      }
    }
    static const std::pair<const char*, const char*> forbidden_members[] = {
        {"type", "must be empty to be structural"},
        {"additionalProperties", "must be undefined to be structural"},
        {"default", "must be undefined to be structural"},
        {"title", "must be empty to be structural"},
        {"description", "must be empty to be structural"},
        {"nullable", "must be false to be structural"},
        {"x-kubernetes-preserve-unknown-fields", "must be false to be structural"},
        {"x-kubernetes-embedded-resource", "must be false to be structural"},
        {"x-kubernetes-int-or-string", "must be false to be structural"},
        {"x-kubernetes-list-map-keys", "must be empty to be structural"},
        {"x-kubernetes-list-type", "must be undefined to be structural"},
        {"x-kubernetes-map-type", "must be undefined to be structural"},
        {"x-kubernetes-validations", "must be empty to be structural"},
    };
    const auto present = [&node](std::string_view name) {
      if (name == "additionalProperties") return additional_of(node).present;
      if (name == "default") return default_of(node) != nullptr;
      if (name == "x-kubernetes-list-type" || name == "x-kubernetes-map-type") {
        return member(node, std::string(name).c_str()) != nullptr;
      }
      return is_set(node, std::string(name).c_str());
    };
    for (const auto& [name, detail] : forbidden_members) {
      if (present(name)) errors.push_back(forbidden(child(path, name), detail));
    }
  }

  // metadata may only say it is an object, and at the root restrict name and generateName.
  void metadata_invariants(const Json& node, bool check_metadata, Level level,
                           const std::string& path) {
    if (check_metadata && type_of(node) != "object") {
      errors.push_back(invalid(child(path, "type"), type_of(node), "must be object"));
    }
    if (level != Level::Root || !node.is_object()) return;
    const Json* properties = properties_of(node);
    bool only_names = false;
    if (properties) {
      const bool name = properties->contains("name"),
                 generate_name = properties->contains("generateName");
      only_names = (name && generate_name && properties->size() == 2) ||
                   ((name || generate_name) && properties->size() == 1);
    }
    for (const auto& [member_name, _] : node.items()) {
      if (member_name == "type" || member_name == "default" || member_name == "example" ||
          member_name == "externalDocs" || (member_name == "properties" && only_names)) {
        continue;
      }
      if (is_set(node, member_name.c_str())) {
        errors.push_back(
            forbidden(path,
                      "must not specify anything other than name and generateName, but "
                      "metadata is implicitly specified"));
        return;
      }
    }
  }

  void nested_completeness(const Json& node, const Json* structural, const std::string& s_path,
                           const std::string& v_path) {
    if (!node.is_object()) return;
    if (!structural) {
      errors.push_back(required(s_path, "because it is defined in " + v_path));
      return;
    }
    completeness(node, structural, s_path, v_path);
    if (const Json* items = items_of(node)) {
      nested_completeness(*items, items_of(*structural), child(s_path, "items"),
                          child(v_path, "items"));
    }
    if (const Json* properties = properties_of(node)) {
      for (const auto& [name, sub] : properties->items()) {
        const std::string s_field = key(child(s_path, "properties"), name);
        const std::string v_field = key(child(v_path, "properties"), name);
        if (const Json* declared = property(*structural, name)) {
          nested_completeness(sub, declared, s_field, v_field);
        } else {
          errors.push_back(required(s_field, "because it is defined in " + v_field));
        }
      }
    }
  }
};

}  // namespace

Errors structural_errors(const Json& schema, const std::string& path) {
  Structural check;
  check.invariants(schema, Level::Root, path);
  check.completeness(schema, &schema, path, path);
  std::sort(check.errors.begin(), check.errors.end(), [](const FieldError& a, const FieldError& b) {
    return a.field + ": " + a.message < b.field + ": " + b.message;
  });
  return check.errors;
}

}  // namespace respool::sandbox::schema::detail

namespace respool::sandbox::schema {

std::vector<FieldError> check_structural(const Json& schema, const std::string& path) {
  using namespace detail;
  if (!schema.is_object()) return {required(path, "schemas are required")};
  Errors out;
  if (nullable(schema))
    out.push_back(forbidden(child(path, "nullable"), "nullable cannot be true at the root"));
  Errors structural = structural_errors(schema, path);
  Errors invariants_or_defaults = structural.empty() ? default_errors(schema, path) : structural;
  out.insert(out.end(), invariants_or_defaults.begin(), invariants_or_defaults.end());
  Errors openapi = openapi_schema_errors(schema, path);
  out.insert(out.end(), openapi.begin(), openapi.end());
  return out;
}

}  // namespace respool::sandbox::schema
