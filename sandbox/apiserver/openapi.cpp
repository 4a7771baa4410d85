#include "sandbox/apiserver/openapi.hpp"

#include <openssl/evp.h>

#include "sandbox/apiserver/responses.hpp"

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

OJson schema_ref(const std::string& name) {
  return {{"$ref", "#/components/schemas/" + name}};
}

OJson content(const std::string& schema, std::initializer_list<const char*> types) {
  OJson c = OJson::object();
  for (const char* t : types)
    c[t] = {{"schema", schema_ref(schema)}};
  return c;
}

OJson query_param(const char* name, const char* description, const char* type = "string") {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", type}, {"uniqueItems", true}}}};
}

OJson operation(const ResourceType& t, const std::string& action, const std::string& verb_word,
                const std::string& schema, bool body, bool patch) {
  OJson op;
  std::string tag = t.group.empty() ? "core_" + t.version : t.group + "_" + t.version;
  op["tags"] = {tag};
  op["description"] = verb_word + " " + t.kind;
  op["operationId"] = action + t.kind;
  if (body) {
    OJson types = patch ? content(kMeta + "Patch",
                                  {"application/json-patch+json", "application/merge-patch+json",
                                   "application/apply-patch+yaml"})
                        : content(schema, {"application/json", "application/yaml"});
    op["requestBody"] = {{"content", types}, {"required", true}};
  }
  op["responses"] = {{"200",
                      {{"description", "OK"},
                       {"content", content(schema, {"application/json", "application/yaml"})}}},
                     {"401", {{"description", "Unauthorized"}}}};
  // Writes list their query parameters as the real server does: kubectl looks for
  // fieldValidation on the PATCH operation to decide that the server validates fields, and
  // otherwise falls back to client-side validation against /openapi/v2, which is not served.
  if (body) {
    OJson params = OJson::array();
    params.push_back(query_param(
        "dryRun", "When present, indicates that modifications should not be persisted."));
    params.push_back(query_param("fieldManager",
                                 "fieldManager is a name associated with the actor or entity that "
                                 "is making these changes."));
    params.push_back(query_param("fieldValidation",
                                 "fieldValidation instructs the server on how to handle objects in "
                                 "the request containing unknown or duplicate fields."));
    if (patch)
      params.push_back(
          query_param("force", "Force is going to \"force\" Apply requests.", "boolean"));
    op["parameters"] = params;
  }
  op["x-kubernetes-action"] = action;
  op["x-kubernetes-group-version-kind"] = gvk(t);
  return op;
}

OJson meta_schemas() {
  OJson s = OJson::object();
  OJson str = {{"type", "string"}};
  s[kMeta + "ObjectMeta"] = {
      {"description",
       "ObjectMeta is metadata that all persisted resources must have, which "
       "includes all objects users must create."},
      {"type", "object"},
      {"properties",
       {{"annotations", {{"type", "object"}, {"additionalProperties", str}}},
        {"creationTimestamp", schema_ref(kMeta + "Time")},
        {"deletionGracePeriodSeconds", {{"type", "integer"}, {"format", "int64"}}},
        {"deletionTimestamp", schema_ref(kMeta + "Time")},
        {"finalizers", {{"type", "array"}, {"items", str}}},
        {"generateName", str},
        {"generation", {{"type", "integer"}, {"format", "int64"}}},
        {"labels", {{"type", "object"}, {"additionalProperties", str}}},
        {"name", str},
        {"namespace", str},
        {"ownerReferences", {{"type", "array"}, {"items", schema_ref(kMeta + "OwnerReference")}}},
        {"resourceVersion", str},
        {"uid", str}}}};
  s[kMeta + "OwnerReference"] = {{"type", "object"},
                                 {"required", {"apiVersion", "kind", "name", "uid"}},
                                 {"properties",
                                  {{"apiVersion", str},
                                   {"blockOwnerDeletion", {{"type", "boolean"}}},
                                   {"controller", {{"type", "boolean"}}},
                                   {"kind", str},
                                   {"name", str},
                                   {"uid", str}}},
                                 {"x-kubernetes-map-type", "atomic"}};
  s[kMeta + "ListMeta"] = {{"type", "object"},
                           {"properties",
                            {{"continue", str},
                             {"remainingItemCount", {{"type", "integer"}, {"format", "int64"}}},
                             {"resourceVersion", str}}}};
  s[kMeta + "Time"] = {{"type", "string"}, {"format", "date-time"}};
  s[kMeta + "Patch"] = {{"type", "object"}};
  s[kMeta + "Status"] = {
      {"type", "object"},
      {"properties",
       {{"code", {{"type", "integer"}}}, {"message", str}, {"reason", str}, {"status", str}}}};
  return s;
}

OJson kind_schema(const ResourceType& t) {
  OJson s;
  OJson str = {{"type", "string"}};
  OJson props = {{"apiVersion",
                  {{"description",
                    "APIVersion defines the versioned schema of this representation of an "
                    "object."},
                   {"type", "string"}}},
                 {"kind",
                  {{"description",
                    "Kind is a string value representing the REST resource this object "
                    "represents."},
                   {"type", "string"}}},
                 {"metadata",
                  {{"description", "Standard object's metadata."},
                   {"allOf", OJson::array({schema_ref(kMeta + "ObjectMeta")})}}}};
  if (t.custom() && t.schema.is_object()) {
    s = OJson::parse(t.schema.dump());
    if (!s.contains("properties") || !s["properties"].is_object())
      s["properties"] = OJson::object();
    for (auto it = props.begin(); it != props.end(); ++it)
      s["properties"][it.key()] = it.value();
    s["type"] = "object";
  } else {
    s["description"] = t.kind + " (schema served by the respool sandbox: fields are not listed)";
    s["type"] = "object";
    props["spec"] = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
    props["status"] = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
    s["properties"] = props;
  }
  s["x-kubernetes-group-version-kind"] = OJson::array({gvk(t)});
  if (t.custom()) s["x-kubernetes-selectable-fields"] = OJson::array();
  return s;
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
  OJson schemas = meta_schemas();
  for (const TypePtr& t : registry.resources(group, version)) {
    std::string name = schema_prefix(*t) + "." + t->kind;
    std::string list = schema_prefix(*t) + "." + t->list_kind;
    schemas[name] = kind_schema(*t);
    schemas[list] = {
        {"type", "object"},
        {"required", {"items"}},
        {"properties",
         {{"apiVersion", {{"type", "string"}}},
          {"items", {{"type", "array"}, {"items", schema_ref(name)}}},
          {"kind", {{"type", "string"}}},
          {"metadata", {{"allOf", OJson::array({schema_ref(kMeta + "ListMeta")})}}}}},
        {"x-kubernetes-group-version-kind",
         OJson::array({{{"group", t->group}, {"kind", t->list_kind}, {"version", t->version}}})}};
    std::string base = (group.empty() ? "/api/" + version : "/apis/" + group + "/" + version) +
                       (t->namespaced ? "/namespaces/{namespace}/" : "/") + t->plural;
    paths[base] = {{"get", operation(*t, "list", "list objects of kind", list, false, false)},
                   {"post", operation(*t, "post", "create a", name, true, false)},
                   {"delete", operation(*t, "deletecollection", "delete collection of",
                                        kMeta + "Status", false, false)}};
    paths[base + "/{name}"] = {
        {"get", operation(*t, "get", "read the specified", name, false, false)},
        {"put", operation(*t, "put", "replace the specified", name, true, false)},
        {"delete", operation(*t, "delete", "delete a", kMeta + "Status", false, false)},
        {"patch", operation(*t, "patch", "partially update the specified", name, true, true)}};
    if (t->status_subresource) {
      paths[base + "/{name}/status"] = {
          {"get", operation(*t, "get", "read status of the specified", name, false, false)},
          {"put", operation(*t, "put", "replace status of the specified", name, true, false)},
          {"patch",
           operation(*t, "patch", "partially update status of the specified", name, true, true)}};
    }
  }
  doc["paths"] = std::move(paths);
  doc["components"] = {{"schemas", std::move(schemas)}};
  return doc;
}

std::optional<http::Response> serve_openapi(const Registry& registry, const http::Target& target) {
  const std::string& path = target.path;
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    OJson paths = OJson::object();
    for (const GroupVersions& g : registry.groups()) {
      for (const std::string& v : g.versions) {
        std::string key = g.name.empty() ? "api/" + v : "apis/" + g.name + "/" + v;
        std::string hash = digest_hex(openapi_document(registry, g.name, v).dump());
        paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + hash}};
      }
    }
    return json_response(200, OJson{{"paths", paths}}.dump(), "text/plain; charset=utf-8");
  }
  const std::string prefix = "/openapi/v3/";
  if (path.rfind(prefix, 0) != 0) return std::nullopt;
  std::string rest = path.substr(prefix.size());
  std::string group, version;
  if (rest.rfind("api/", 0) == 0) {
    version = rest.substr(4);
  } else if (rest.rfind("apis/", 0) == 0) {
    std::string gv = rest.substr(5);
    auto slash = gv.find('/');
    if (slash == std::string::npos) return std::nullopt;
    group = gv.substr(0, slash);
    version = gv.substr(slash + 1);
  } else {
    return std::nullopt;
  }
  if (group.empty() && version != "v1") return std::nullopt;
  if (!group.empty() && !registry.serves_group_version(group, version)) return std::nullopt;
  std::string body = openapi_document(registry, group, version).dump();
  std::string hash = digest_hex(body);
  http::Response r = json_response(200, std::move(body));
  auto asked = target.param("hash");
  r.headers.set("Cache-Control",
                asked && *asked == hash ? "public, immutable" : "no-cache, private");
  r.headers.set("Vary", "Accept");
  r.headers.set("Etag", "\"" + hash + "\"");
  return r;
}

}  // namespace respool::sandbox
