// field_schema: OpenAPI v3 definitions built once per kind (add_definitions) and kept.

#include "sandbox/apiserver/field_schemas.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "sandbox/apiserver/openapi_schemas.hpp"

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

}  // namespace respool::sandbox
