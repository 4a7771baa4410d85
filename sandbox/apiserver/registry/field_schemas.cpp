// field_schema: OpenAPI v3 definitions built once per kind (add_definitions) and kept.

#include "sandbox/apiserver/registry/field_schemas.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "sandbox/apiserver/openapi/schemas.hpp"

namespace respool::sandbox {
namespace {

constexpr const char* kObjectMeta = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

struct Definitions {
  std::shared_ptr<const Json> defs;
  std::string root;  // the kind's definition name ("" for none)
};

// Definitions of a kind's message and everything it reaches, ObjectMeta included.
Definitions definitions_for(const protobuf::MessageDef* kind) {
  static std::mutex mu;
  static std::map<const protobuf::MessageDef*, Definitions> cache;
  std::lock_guard lock(mu);
  auto it = cache.find(kind);
  if (it != cache.end()) return it->second;
  const protobuf::ApiTable& table = protobuf::ApiTable::get();
  Json defs = Json::object();
  if (const auto* meta = table.message(kObjectMeta))
    add_definitions(*meta, OpenApiVersion::V3, defs);
  Definitions d;
  if (kind) {
    add_definitions(*kind, OpenApiVersion::V3, defs);
    d.root = kind->openapi_name();
  }
  d.defs = std::make_shared<const Json>(std::move(defs));
  return cache.emplace(kind, d).first->second;
}

// encoding/json of a Go zero value of `m`.
Json zero_of(const protobuf::MessageDef& m, int depth) {
  using protobuf::CustomJson;
  using protobuf::Scalar;
  Json out = Json::object();
  if (depth > 12) return out;
  for (const protobuf::FieldDef& f : m.fields) {
    if (f.json == "-" || f.json.empty()) continue;
    if (f.repeated || f.is_map() || f.pointer) {
      if (!f.omitempty) out[f.json] = nullptr;
      continue;
    }
    const protobuf::TypeRef& t = f.type;
    if (t.scalar == Scalar::Message && t.message) {
      const protobuf::MessageDef& sub = *t.message;
      Json value;
      switch (sub.custom) {
        case CustomJson::None:
          value = zero_of(sub, depth + 1);
          break;
        case CustomJson::Quantity:
          value = "0";
          break;
        case CustomJson::IntOrString:
          value = 0;
          break;
        case CustomJson::Duration:
          value = "0s";
          break;
        default:
          value = nullptr;  // Time, MicroTime (null when zero), RawExtension, FieldsV1
          break;
      }
      if (f.inline_struct && value.is_object()) {
        for (auto& [k, v] : value.items())
          out[k] = v;
      } else {
        out[f.json] = std::move(value);  // omitempty never drops a struct
      }
      continue;
    }
    if (f.omitempty) continue;
    if (t.scalar == Scalar::Bool) {
      out[f.json] = false;
    } else if (t.scalar == Scalar::String || t.scalar == Scalar::Bytes) {
      out[f.json] = t.scalar == Scalar::String ? Json("") : Json(nullptr);
    } else {
      out[f.json] = 0;
    }
  }
  return out;
}

std::string object_meta_name() {
  const auto* meta = protobuf::ApiTable::get().message(kObjectMeta);
  return meta ? meta->openapi_name() : "";
}

}  // namespace

fields::Schema field_schema(const ResourceType& type) {
  static const std::string meta = object_meta_name();
  if (type.custom()) {
    return fields::Schema(type.schema, definitions_for(nullptr).defs, meta);
  }
  const protobuf::MessageDef* kind =
      protobuf::ApiTable::get().kind(type.group, type.version, type.kind);
  Definitions d = definitions_for(kind);
  Json root = d.root.empty() ? Json() : d.defs->value(d.root, Json());
  return fields::Schema(std::move(root), d.defs, meta);
}

Json zero_object(const ResourceType& type) {
  static std::mutex mu;
  static std::map<std::string, Json> cache;
  if (type.custom()) return Json::object();
  std::lock_guard lock(mu);
  std::string key = type.api_version() + "/" + type.kind;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const protobuf::MessageDef* kind =
      protobuf::ApiTable::get().kind(type.group, type.version, type.kind);
  return cache.emplace(key, kind ? zero_of(*kind, 0) : Json::object()).first->second;
}

}  // namespace respool::sandbox
