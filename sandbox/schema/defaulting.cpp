// apiextensions-apiserver's pkg/apiserver/schema/defaulting: PruneNonNullableNullsWithoutDefaults
// then Default, as the API server runs them on every custom resource it decodes.

#include "sandbox/schema/schema.hpp"
#include "sandbox/schema/schema_node.hpp"

namespace respool::sandbox::schema {

namespace {

bool non_nullable_null(const Json& value, const Json* schema) {
  return value.is_null() && schema && !detail::nullable(*schema);
}

// The schema of an object's field: its property, else additionalProperties when a schema.
const Json* field_schema(const Json* schema, const std::string& name) {
  if (!schema) return nullptr;
  if (const Json* property = detail::property(*schema, name)) return property;
  return detail::additional_of(*schema).schema;
}

void prune_nulls(Json& value, const Json* schema) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      const Json* sub = field_schema(schema, it.key());
      if (non_nullable_null(*it, sub) && !detail::default_of(*sub)) {
        it = value.erase(it);
      } else {
        prune_nulls(*it, sub);
        ++it;
      }
    }
  } else if (value.is_array()) {
    const Json* items = schema ? detail::items_of(*schema) : nullptr;
    for (auto& item : value)
      prune_nulls(item, items);
  }
}

// The default of `schema`, or null when it has none (Go assigns a nil default then).
Json default_or_null(const Json& schema) {
  const Json* value = detail::default_of(schema);
  return value ? *value : Json(nullptr);
}

void apply(Json& value, const Json* schema) {
  if (!schema) return;
  if (value.is_object()) {
    if (const Json* properties = detail::properties_of(*schema)) {
      for (const auto& [name, property] : properties->items()) {
        const Json* fallback = detail::default_of(property);
        if (!fallback) continue;
        auto it = value.find(name);
        if (it == value.end() || non_nullable_null(*it, &property)) value[name] = *fallback;
      }
    }
    const detail::Additional additional = detail::additional_of(*schema);
    for (auto& [name, item] : value.items()) {
      if (const Json* property = detail::property(*schema, name)) {
        apply(item, property);
      } else if (additional.present) {
        if (non_nullable_null(item, additional.schema)) item = default_or_null(*additional.schema);
        apply(item, additional.schema);
      }
    }
  } else if (value.is_array()) {
    const Json* items = detail::items_of(*schema);
    for (auto& item : value) {
      if (non_nullable_null(item, items)) item = default_or_null(*items);
      apply(item, items);
    }
  }
}

}  // namespace

void apply_defaults(Json& object, const Json& schema) {
  prune_nulls(object, &schema);
  apply(object, &schema);
}

void default_and_prune(Json& object, const Json& schema) {
  prune(object, schema);
  apply_defaults(object, schema);
}

}  // namespace respool::sandbox::schema
