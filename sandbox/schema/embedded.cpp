// The TypeMeta checks of embedded resources (apiextensions-apiserver's
// pkg/apiserver/schema/objectmeta/validation.go), which the custom resource strategy runs
// after schema validation. The ObjectMeta checks of embedded metadata are not reproduced.

#include <algorithm>

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/regex.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

namespace {

// utilvalidation.IsDNS1035Label, its messages joined with ",".
std::string dns1035_label_errors(const std::string& value) {
  static const std::regex label("^[a-z]([-a-z0-9]*[a-z0-9])?$");
  std::string errors;
  if (value.size() > 63) errors = "must be no more than 63 characters";
  if (!std::regex_match(value, label)) {
    if (!errors.empty()) errors += ",";
    errors +=
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
        "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
        "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  }
  return errors;
}

void check_type_meta(const std::string& path, const Json& resource, Errors& out) {
  if (!resource.contains("apiVersion")) out.push_back(required(child(path, "apiVersion")));
  if (!resource.contains("kind")) out.push_back(required(child(path, "kind")));
  for (const auto& [name, value] : resource.items()) {
    const std::string field = child(path, name);
    if (name == "apiVersion") {
      if (!value.is_string()) {
        out.push_back(invalid(field, value, "must be a string"));
      } else if (value.get_ref<const std::string&>().empty()) {
        out.push_back(invalid(field, value, "must not be empty"));
      } else if (const auto& text = value.get_ref<const std::string&>();
                 text != "/" && std::count(text.begin(), text.end(), '/') > 1) {
        out.push_back(invalid(field, value, "unexpected GroupVersion string: " + text));
      }
    } else if (name == "kind") {
      if (!value.is_string()) {
        out.push_back(invalid(field, value, "must be a string"));
      } else if (value.get_ref<const std::string&>().empty()) {
        out.push_back(invalid(field, value, "must not be empty"));
      } else {
        std::string lower = value.get<std::string>();
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (std::string errors = dns1035_label_errors(lower); !errors.empty()) {
          out.push_back(
              invalid(field, value, "may have mixed case, but should otherwise match: " + errors));
        }
      }
    }
  }
}

// Walks the object along the schema; map entries are named with brackets here, as
// objectmeta.Validate uses field.Path's Key.
void walk(const Json& value, const Json* schema, const std::string& path, Errors& out) {
  if (!schema) return;
  if (value.is_object()) {
    if (embedded(*schema)) check_type_meta(path, value, out);
    const Additional additional = additional_of(*schema);
    for (const auto& [name, item] : value.items()) {
      if (const Json* sub = property(*schema, name)) {
        walk(item, sub, child(path, name), out);
      } else if (additional.present) {
        walk(item, additional.schema, key(path, name), out);
      }
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      walk(value[i], items_of(*schema), index(path, i), out);
    }
  }
}

}  // namespace

Errors embedded_resource_errors(const Json& object, const Json& schema) {
  Errors out;
  walk(object, &schema, "", out);
  return out;
}

}  // namespace respool::sandbox::schema::detail
