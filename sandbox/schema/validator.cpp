// The structure of kube-openapi's SchemaValidator: per node the type, schema-props (anyOf,
// oneOf, allOf, not), string, format, number, slice, common (enum) and object validators, in
// that order, each only for the kinds of value it applies to.

#include <cmath>

#include "sandbox/schema/crd_checks.hpp"
#include "sandbox/schema/field_errors.hpp"
#include "sandbox/schema/go_format.hpp"
#include "sandbox/schema/openapi.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema::detail {

namespace {

// The types a node admits; x-kubernetes-int-or-string becomes [integer, string].
std::vector<std::string> types_of(const Json& schema) {
  if (int_or_string(schema)) return {"integer", "string"};
  std::string type = type_of(schema);
  if (type.empty()) return {};
  return {type};
}

bool contains(const std::vector<std::string>& types, const std::string& type) {
  for (const auto& t : types) {
    if (t == type) return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& types) {
  std::string out;
  for (const auto& t : types)
    out += (out.empty() ? "" : ",") + t;
  return out;
}

// typeValidator.schemaInfoForType: the JSON type and format Go infers from a decoded value.
std::pair<std::string, std::string> schema_info(const Json& data) {
  switch (kind_of(data)) {
    case Kind::Bool:
      return {"boolean", ""};
    case Kind::Int:
      return {"integer", "int64"};
    case Kind::Float:
      return {"number", "float64"};
    case Kind::String:
      return {"string", ""};
    case Kind::Array:
      return {"array", ""};
    case Kind::Object:
      return {"object", ""};
    default:
      return {"", ""};
  }
}

Result check_type(const Json& data, const Json& schema, const std::string& path,
                  const std::string& format) {
  Result ok;
  ok.match_count = 1;
  const auto types = types_of(schema);
  if (data.is_null()) {
    if (!types.empty() && !contains(types, "null") && !nullable(schema)) {
      return Result::with_error(invalid_type(path, join(types), "null"));
    }
    return ok;
  }
  const Kind kind = kind_of(data);
  const auto [type, value_format] = schema_info(data);
  const bool float_int =
      type == "number" && is_json_integer(as_float(data)) && contains(types, "integer");
  const bool int_float = type == "integer" && contains(types, "number");
  const bool stringish = kind == Kind::String || kind == Kind::Array;
  // A format on a non-string value is checked against the value's own Go format first.
  if (!stringish && !format.empty() &&
      !(contains(types, type) || value_format == format || float_int || int_float)) {
    return Result::with_error(invalid_type(path, format, value_format));
  }
  if (!contains(types, "number") && !contains(types, "integer") && !format.empty() && stringish) {
    return ok;
  }
  if (!(contains(types, type) || float_int || int_float)) {
    return Result::with_error(invalid_type(path, join(types), type));
  }
  return ok;
}

std::vector<const Json*> schemas_in(const Json& schema, const char* key) {
  std::vector<const Json*> out;
  const Json* list = member(schema, key);
  if (list && list->is_array()) {
    for (const auto& item : *list) {
      if (item.is_object()) out.push_back(&item);
    }
  }
  return out;
}

// schemaPropsValidator: anyOf and oneOf report the errors of their best alternative (the one
// with the highest match count) after their own message.
Result check_composition(const Json& data, const Json& schema, const std::string& path) {
  Result main;
  const auto quoted = [&path] { return go_quote(path); };
  if (auto any_of = schemas_in(schema, "anyOf"); !any_of.empty()) {
    std::optional<Result> best, first_success;
    for (const Json* alternative : any_of) {
      Result result = validate_node(data, *alternative, path);
      if (result.valid()) {
        best.reset();
        first_success = std::move(result);
        break;
      }
      if (!best || result.match_count > best->match_count) best = std::move(result);
    }
    if (!first_success)
      main.add(composite(quoted() + " must validate at least one schema (anyOf)"));
    if (best)
      main.merge(*best);
    else if (first_success)
      main.merge(*first_success);
  }
  if (auto one_of = schemas_in(schema, "oneOf"); !one_of.empty()) {
    std::optional<Result> best, first_success;
    int validated = 0;
    for (const Json* alternative : one_of) {
      Result result = validate_node(data, *alternative, path);
      if (result.valid()) {
        ++validated;
        best.reset();
        if (!first_success) first_success = std::move(result);
        continue;
      }
      if (validated == 0 && (!best || result.match_count > best->match_count)) {
        best = std::move(result);
      }
    }
    if (validated != 1) {
      const std::string found = validated == 0
                                    ? "Found none valid"
                                    : "Found " + std::to_string(validated) + " valid alternatives";
      main.add(composite(quoted() + " must validate one and only one schema (oneOf). " + found));
      if (best) main.merge(*best);
    } else if (first_success) {
      main.merge(*first_success);
    }
  }
  if (auto all_of = schemas_in(schema, "allOf"); !all_of.empty()) {
    std::size_t validated = 0;
    for (const Json* part : all_of) {
      Result result = validate_node(data, *part, path);
      if (result.valid()) ++validated;
      main.merge(result);
    }
    if (validated != all_of.size()) {
      main.add(composite(quoted() + " must validate all the schemas (allOf)" +
                         (validated == 0 ? ". None validated" : "")));
    }
  }
  if (const Json* negated = member(schema, "not"); negated && negated->is_object()) {
    if (validate_node(data, *negated, path).valid()) {
      main.add(composite(quoted() + " must not validate the schema (not)"));
    }
  }
  ++main.match_count;
  return main;
}

std::optional<std::int64_t> int_member(const Json& schema, const char* key) {
  const Json* value = member(schema, key);
  if (!value || !value->is_number()) return std::nullopt;
  return as_int(*value);
}

Result check_array(const Json& data, const Json& schema, const std::string& path) {
  Result result;
  if (const Json* items = items_of(schema)) {
    for (std::size_t i = 0; i < data.size(); ++i) {
      result.merge(validate_node(data[i], *items, index(path, i)));
    }
  }
  const auto size = static_cast<std::int64_t>(data.size());
  if (auto min = int_member(schema, "minItems"); min && size < *min) {
    result.add(error_at(Code::MinItems, path, Json(size),
                        path + " in body should have at least " + std::to_string(*min) + " items"));
  }
  if (auto max = int_member(schema, "maxItems"); max && size > *max) {
    result.add(error_at(Code::MaxItems, path, Json(size),
                        path + " in body should have at most " + std::to_string(*max) + " items",
                        *max));
  }
  if (is_true(schema, "uniqueItems")) {
    for (std::size_t i = 0; i < data.size(); ++i) {
      bool duplicate = false;
      for (std::size_t j = 0; j < i && !duplicate; ++j)
        duplicate = data[i] == data[j];
      if (duplicate) {
        result.add(error_at(Code::Unique, path, std::nullopt,
                            path + " in body shouldn't contain duplicates"));
        break;
      }
    }
  }
  ++result.match_count;
  return result;
}

// objectValidator: the property counts (which, in the kube-openapi of v1.32, do not stop the
// rest), then the keys the schema does not declare, the declared properties, the required ones.
Result check_object(const Json& data, const Json& schema, const std::string& path) {
  Result result;
  const auto count = static_cast<std::int64_t>(data.size());
  if (auto min = int_member(schema, "minProperties"); min && count < *min) {
    result.add(
        error_at(Code::TooFewProperties, path, Json(count),
                 path + " in body should have at least " + std::to_string(*min) + " properties"));
  }
  if (auto max = int_member(schema, "maxProperties"); max && count > *max) {
    result.add(error_at(
        Code::TooManyProperties, path, Json(count),
        path + " in body should have at most " + std::to_string(*max) + " properties", *max));
  }
  const Additional additional = additional_of(schema);
  for (const auto& [name, value] : data.items()) {
    if (property(schema, name)) continue;
    if (additional.present && !additional.allows) {
      result.add(error_at(Code::UnallowedProperty, path, Json(name),
                          path + "." + name + " in body is a forbidden property"));
    } else if (additional.schema) {
      result.merge(validate_node(value, *additional.schema, path + "." + name));
    }
  }
  if (const Json* properties = properties_of(schema)) {
    for (const auto& [name, sub] : properties->items()) {
      auto it = data.find(name);
      if (it != data.end()) result.merge(validate_node(*it, sub, child(path, name)));
    }
  }
  if (const Json* required = member(schema, "required"); required && required->is_array()) {
    for (const auto& name : *required) {
      if (!name.is_string() || data.contains(name.get<std::string>())) continue;
      const std::string field = path + "." + name.get<std::string>();
      result.add(error_at(Code::Required, field, std::nullopt, field + " in body is required"));
    }
  }
  return result;
}

}  // namespace

Result validate_node(const Json& data, const Json& schema, const std::string& path) {
  Result result;
  const std::string format = supported_format(schema);
  const bool typed = !types_of(schema).empty() || !format.empty();
  if (data.is_null()) {
    result.merge(check_type(data, schema, path, format));
    result.merge(check_enum(data, schema, path));
    return result;
  }
  const Kind kind = kind_of(data);
  const auto apply = [&result](const Result& part) {
    result.merge(part);
    ++result.match_count;
  };
  if (typed) apply(check_type(data, schema, path, format));
  apply(check_composition(data, schema, path));
  if (kind == Kind::String) apply(check_string(data, schema, path));
  if (kind == Kind::String && !format.empty()) apply(check_format(data, format, path));
  if (kind == Kind::Int || kind == Kind::Float) apply(check_number(data, schema, path));
  if (kind == Kind::Array) apply(check_array(data, schema, path));
  apply(check_enum(data, schema, path));
  if (kind == Kind::Object) apply(check_object(data, schema, path));
  ++result.match_count;
  return result;
}

}  // namespace respool::sandbox::schema::detail

namespace respool::sandbox::schema {

std::vector<FieldError> validate(const Json& object, const Json& schema) {
  auto errors = detail::to_field_errors(std::nullopt, detail::validate_node(object, schema, ""));
  const auto embedded = detail::embedded_resource_errors(object, schema);
  errors.insert(errors.end(), embedded.begin(), embedded.end());
  return errors;
}

}  // namespace respool::sandbox::schema
