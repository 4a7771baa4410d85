#pragma once
// Read access to one node of an openAPIV3Schema held as JSON. A CRD's schema is user input:
// every accessor tolerates members of the wrong JSON type by treating them as absent.

#include <string>

#include <nlohmann/json.hpp>

namespace respool::sandbox::schema::detail {

using Json = nlohmann::json;

inline const Json* member(const Json& node, const char* key) {
  if (!node.is_object()) return nullptr;
  auto it = node.find(key);
  return it == node.end() ? nullptr : &*it;
}

inline bool is_true(const Json& node, const char* key) {
  const Json* value = member(node, key);
  return value && value->is_boolean() && value->get<bool>();
}

inline std::string string_member(const Json& node, const char* key) {
  const Json* value = member(node, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

inline std::string type_of(const Json& node) {
  return string_member(node, "type");
}
inline bool nullable(const Json& node) {
  return is_true(node, "nullable");
}
inline bool preserves_unknown(const Json& node) {
  return is_true(node, "x-kubernetes-preserve-unknown-fields");
}
inline bool embedded(const Json& node) {
  return is_true(node, "x-kubernetes-embedded-resource");
}
inline bool int_or_string(const Json& node) {
  return is_true(node, "x-kubernetes-int-or-string");
}

// The default, or nullptr; `default: null` is no default, as in apiextensions' JSON type.
inline const Json* default_of(const Json& node) {
  const Json* value = member(node, "default");
  return value && !value->is_null() ? value : nullptr;
}

inline const Json* properties_of(const Json& node) {
  const Json* value = member(node, "properties");
  return value && value->is_object() ? value : nullptr;
}

inline const Json* property(const Json& node, const std::string& name) {
  const Json* properties = properties_of(node);
  if (!properties) return nullptr;
  auto it = properties->find(name);
  return it == properties->end() ? nullptr : &*it;
}

// additionalProperties: absent, a boolean, or a schema (which allows).
struct Additional {
  bool present = false;
  bool allows = true;
  const Json* schema = nullptr;
};

inline Additional additional_of(const Json& node) {
  const Json* value = member(node, "additionalProperties");
  if (!value) return {};
  if (value->is_boolean()) return {true, value->get<bool>(), nullptr};
  if (value->is_object()) return {true, true, value};
  return {};
}

// items when it is a single schema (an array of schemas is refused by CRD validation).
inline const Json* items_of(const Json& node) {
  const Json* value = member(node, "items");
  return value && value->is_object() ? value : nullptr;
}

inline bool is_meta_field(const std::string& key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

}  // namespace respool::sandbox::schema::detail
