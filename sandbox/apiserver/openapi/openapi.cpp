#include "sandbox/apiserver/openapi/openapi.hpp"

#include <openssl/evp.h>

#include "sandbox/apiserver/handlers/negotiation.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/apiserver/openapi/paths.hpp"
#include "sandbox/apiserver/openapi/schemas.hpp"
#include "sandbox/protobuf/api_table.hpp"

namespace respool::sandbox {
namespace {

const std::string kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";

// "ref.example.com" -> "com.example.ref"; built-in groups live under io.k8s.api.
std::string schema_prefix(const ResourceType& t) {
  if (!t.custom()) {
    if (t.group == "apiextensions.k8s.io") {
      return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions." + t.version;
    }
    std::string g = t.group.empty() ? "core" : t.group.substr(0, t.group.find('.'));
    return "io.k8s.api." + g + "." + t.version;
  }
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i <= t.group.size()) {
    std::size_t j = t.group.find('.', i);
    if (j == std::string::npos) j = t.group.size();
    parts.push_back(t.group.substr(i, j - i));
    i = j + 1;
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it)
    out += (out.empty() ? "" : ".") + *it;
  return out + "." + t.version;
}

OJson gvk(const ResourceType& t) {
  return {{"group", t.group}, {"kind", t.kind}, {"version", t.version}};
}

// A CRD's schema with the standard apiVersion, kind and metadata properties.
OJson custom_kind_schema(const ResourceType& t, OpenApiVersion v) {
  OJson props = {{"apiVersion",
                  {{"description",
                    "APIVersion defines the versioned schema of this representation of an "
                    "object."},
                   {"type", "string"}}},
                 {"kind",
                  {{"description",
                    "Kind is a string value representing the REST resource this object "
                    "represents."},
                   {"type", "string"}}}};
  OJson meta_ref = {{"$ref", openapi_ref(v, kMeta + "ObjectMeta")}};
  props["metadata"] =
      v == OpenApiVersion::V3
          ? OJson{{"description", "Standard object's metadata."},
                  {"allOf", OJson::array({meta_ref})}}
          : OJson{{"description", "Standard object's metadata."}, {"$ref", meta_ref["$ref"]}};
  OJson s;
  if (t.schema.is_object()) {
    s = OJson::parse(t.schema.dump());
    if (!s.contains("properties") || !s["properties"].is_object())
      s["properties"] = OJson::object();
    for (auto it = props.begin(); it != props.end(); ++it)
      s["properties"][it.key()] = it.value();
  } else {
    s["properties"] = props;
  }
  s["type"] = "object";
  s["x-kubernetes-group-version-kind"] = OJson::array({gvk(t)});
  s["x-kubernetes-selectable-fields"] = OJson::array();
  return s;
}

// A built-in kind without protobuf definitions (apiextensions.k8s.io): its group-version-kind
// and open spec and status.
OJson opaque_kind_schema(const ResourceType& t, OpenApiVersion v) {
  OJson meta_ref = {{"$ref", openapi_ref(v, kMeta + "ObjectMeta")}};
  OJson open = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  return {{"description", t.kind},
          {"type", "object"},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"metadata",
             v == OpenApiVersion::V3 ? OJson{{"allOf", OJson::array({meta_ref})}} : meta_ref},
            {"spec", open},
            {"status", open}}},
          {"x-kubernetes-group-version-kind", OJson::array({gvk(t)})}};
}

OJson list_schema(const ResourceType& t, const std::string& item, OpenApiVersion v) {
  return {{"type", "object"},
          {"required", {"items"}},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"items", {{"type", "array"}, {"items", {{"$ref", openapi_ref(v, item)}}}}},
            {"kind", {{"type", "string"}}},
            {"metadata", {{"$ref", openapi_ref(v, kMeta + "ListMeta")}}}}},
          {"x-kubernetes-group-version-kind",
           OJson::array({{{"group", t.group}, {"kind", t.list_kind}, {"version", t.version}}})}};
}

// The schemas every document refers to: ObjectMeta, ListMeta, Status, DeleteOptions (from the
// type table), and Patch (a Go type without protobuf form).
void add_meta_definitions(OpenApiVersion v, Json& defs) {
  const protobuf::ApiTable& table = protobuf::ApiTable::get();
  for (const char* name : {"ObjectMeta", "ListMeta", "Status", "DeleteOptions"}) {
    if (const auto* m = table.message("k8s.io.apimachinery.pkg.apis.meta.v1." + std::string(name)))
      add_definitions(*m, v, defs);
  }
  defs[kMeta + "Patch"] = {{"description",
                            "Patch is provided to give a concrete name and type to the Kubernetes "
                            "PATCH request body."},
                           {"type", "object"}};
}

// Adds one resource's definitions and paths.
void add_resource(const ResourceType& t, OpenApiVersion v, Json& defs, OJson& custom_defs,
                  OJson& paths) {
  const protobuf::ApiTable& table = protobuf::ApiTable::get();
  ResourceSchemas names;
  const protobuf::MessageDef* kind = t.custom() ? nullptr : table.kind(t.group, t.version, t.kind);
  const protobuf::MessageDef* list =
      t.custom() ? nullptr : table.kind(t.group, t.version, t.list_kind);
  if (kind && list) {
    add_definitions(*kind, v, defs);
    add_definitions(*list, v, defs);
    names.object = kind->openapi_name();
    names.list = list->openapi_name();
    defs[names.object]["x-kubernetes-group-version-kind"] = Json::array({Json(gvk(t))});
    defs[names.list]["x-kubernetes-group-version-kind"] =
        Json::array({{{"group", t.group}, {"kind", t.list_kind}, {"version", t.version}}});
  } else {
    names.object = schema_prefix(t) + "." + t.kind;
    names.list = schema_prefix(t) + "." + t.list_kind;
    custom_defs[names.object] = t.custom() ? custom_kind_schema(t, v) : opaque_kind_schema(t, v);
    custom_defs[names.list] = list_schema(t, names.object, v);
  }
  if (t.scale) {
    if (const auto* scale = table.kind("autoscaling", "v1", "Scale")) {
      add_definitions(*scale, v, defs);
      names.scale = scale->openapi_name();
    }
  }
  add_resource_paths(t, names, v, paths);
}

OJson merged(const Json& defs, OJson custom_defs) {
  OJson out(defs);
  for (auto it = custom_defs.begin(); it != custom_defs.end(); ++it)
    out[it.key()] = std::move(it.value());
  return out;
}

std::string digest_hex(const std::string& body) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(body.data(), body.size(), d, &len, EVP_sha512(), nullptr);
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[d[i] >> 4];
    out += hex[d[i] & 15];
  }
  return out;
}

}  // namespace

OJson openapi_document(const Registry& registry, const std::string& group,
                       const std::string& version) {
  OJson doc;
  doc["openapi"] = "3.0.0";
  doc["info"] = {{"title", group.empty() ? "Kubernetes" : "Kubernetes CRD Swagger"},
                 {"version", group.empty() ? "v1.32.13" : "v0.1.0"}};
  OJson paths = OJson::object();
  Json defs = Json::object();
  OJson custom_defs = OJson::object();
  add_meta_definitions(OpenApiVersion::V3, defs);
  for (const TypePtr& t : registry.resources(group, version))
    add_resource(*t, OpenApiVersion::V3, defs, custom_defs, paths);
  doc["paths"] = std::move(paths);
  doc["components"] = {{"schemas", merged(defs, std::move(custom_defs))}};
  return doc;
}

OJson openapi_v2_document(const Registry& registry) {
  OJson doc;
  doc["swagger"] = "2.0";
  doc["info"] = {{"title", "Kubernetes"}, {"version", "v1.32.13"}};
  OJson paths = OJson::object();
  Json defs = Json::object();
  OJson custom_defs = OJson::object();
  add_meta_definitions(OpenApiVersion::V2, defs);
  for (const TypePtr& t : registry.all())
    add_resource(*t, OpenApiVersion::V2, defs, custom_defs, paths);
  doc["paths"] = std::move(paths);
  doc["definitions"] = merged(defs, std::move(custom_defs));
  return doc;
}

const OpenApiDocuments::Document& OpenApiDocuments::document(const Registry& registry,
                                                             const std::string& key) {
  auto it = documents_.find(key);
  if (it != documents_.end()) return it->second;
  std::string body;
  if (key == "v2") {
    body = openapi_v2_document(registry).dump();
  } else if (key.rfind("api/", 0) == 0) {
    body = openapi_document(registry, "", key.substr(4)).dump();
  } else {
    std::string gv = key.substr(5);
    auto slash = gv.find('/');
    body = openapi_document(registry, gv.substr(0, slash), gv.substr(slash + 1)).dump();
  }
  std::string hash = digest_hex(body);
  return documents_.emplace(key, Document{std::move(body), std::move(hash)}).first->second;
}

std::optional<http::Response> OpenApiDocuments::serve(const Registry& registry,
                                                      const http::Target& target,
                                                      std::string_view accept) {
  std::lock_guard lock(mu_);
  if (registry.generation() != generation_) {
    documents_.clear();
    generation_ = registry.generation();
  }
  const std::string& path = target.path;
  if (path == "/openapi/v2" || path == "/openapi/v2/") {
    // kubectl asks for the gnostic protobuf form only; JSON is what is served (a 406 sends
    // kubectl on without it, as when a server has no v2 document).
    bool json = accept.empty();
    for (const MediaRange& r : parse_media_ranges(accept)) {
      if (r.type == "application/json" || r.type == "*/*" || r.type == "application/*") json = true;
    }
    if (!json) return error_response(not_acceptable());
    const Document& d = document(registry, "v2");
    http::Response r = json_response(200, d.body);
    r.headers.set("Cache-Control", "no-cache, private");
    r.headers.set("Vary", "Accept");
    r.headers.set("Etag", "\"" + d.hash + "\"");
    return r;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    OJson paths = OJson::object();
    for (const GroupVersions& g : registry.groups()) {
      for (const std::string& v : g.versions) {
        std::string key = g.name.empty() ? "api/" + v : "apis/" + g.name + "/" + v;
        paths[key] = {
            {"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + document(registry, key).hash}};
      }
    }
    return json_response(200, OJson{{"paths", paths}}.dump(), "text/plain; charset=utf-8");
  }
  const std::string prefix = "/openapi/v3/";
  if (path.rfind(prefix, 0) != 0) return std::nullopt;
  std::string key = path.substr(prefix.size());
  std::string group, version;
  if (key.rfind("api/", 0) == 0) {
    version = key.substr(4);
  } else if (key.rfind("apis/", 0) == 0) {
    std::string gv = key.substr(5);
    auto slash = gv.find('/');
    if (slash == std::string::npos) return std::nullopt;
    group = gv.substr(0, slash);
    version = gv.substr(slash + 1);
  } else {
    return std::nullopt;
  }
  if (group.empty() && version != "v1") return std::nullopt;
  if (!group.empty() && !registry.serves_group_version(group, version)) return std::nullopt;
  const Document& d = document(registry, key);
  http::Response r = json_response(200, d.body);
  auto asked = target.param("hash");
  r.headers.set("Cache-Control",
                asked && *asked == d.hash ? "public, immutable" : "no-cache, private");
  r.headers.set("Vary", "Accept");
  r.headers.set("Etag", "\"" + d.hash + "\"");
  return r;
}

}  // namespace respool::sandbox
