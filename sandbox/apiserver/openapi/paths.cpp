#include "sandbox/apiserver/openapi/paths.hpp"

#include <cctype>

namespace respool::sandbox {
namespace {

const std::string kMetaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

struct Op {
  std::string action;  // x-kubernetes-action: get, list, post, put, patch, delete, ...
  std::string id;      // operationId prefix: read, list, create, replace, patch, delete, ...
  std::string description;
  std::string schema;    // the answer's schema
  std::string body;      // the request body's schema ("" for none)
  bool patch = false;    // a PATCH: its body is a meta/v1 Patch in the patch media types
  std::string sub_kind;  // "Scale": the group-version-kind of a subresource
};

OJson query_param(const char* name, const char* description, const char* type = "string") {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", type}, {"uniqueItems", true}}}};
}

// Writes list the query parameters a real server does: kubectl looks for fieldValidation on
// the PATCH operation to decide that the server validates fields itself.
OJson write_params(bool patch, OpenApiVersion v) {
  OJson params = OJson::array();
  params.push_back(
      query_param("dryRun", "When present, indicates that modifications should not be persisted."));
  params.push_back(query_param("fieldManager",
                               "fieldManager is a name associated with the actor or entity that "
                               "is making these changes."));
  params.push_back(query_param("fieldValidation",
                               "fieldValidation instructs the server on how to handle objects in "
                               "the request containing unknown or duplicate fields."));
  if (patch) {
    params.push_back(
        query_param("force", "Force is going to \"force\" Apply requests.", "boolean"));
  }
  if (v == OpenApiVersion::V2) {
    for (OJson& p : params) {
      p["type"] = p["schema"]["type"];
      p["uniqueItems"] = true;
      p.erase("schema");
    }
  }
  return params;
}

std::vector<std::string> patch_types(const ResourceType& t) {
  std::vector<std::string> types = {"application/apply-patch+yaml", "application/json-patch+json",
                                    "application/merge-patch+json"};
  if (!t.custom()) types.push_back("application/strategic-merge-patch+json");
  return types;
}

std::vector<std::string> object_types(const ResourceType& t) {
  if (t.custom()) return {"application/json", "application/yaml"};
  return {"application/json", "application/vnd.kubernetes.protobuf", "application/yaml"};
}

// "apps" -> "Apps", "rbac.authorization.k8s.io" -> "RbacAuthorization" (operationIds).
std::string group_word(const ResourceType& t) {
  std::string g = t.group.empty() ? "core" : t.group;
  if (g.size() > 7 && g.ends_with(".k8s.io")) g.resize(g.size() - 7);
  std::string out;
  bool upper = true;
  for (char c : g) {
    if (c == '.') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

OJson operation(const ResourceType& t, const Op& op, OpenApiVersion v) {
  std::string version_word = t.version;
  version_word[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(version_word[0])));
  OJson o;
  o["description"] = op.description + " " + t.kind;
  o["operationId"] = op.id + group_word(t) + version_word + (t.namespaced ? "Namespaced" : "") +
                     t.kind + op.sub_kind;
  o["tags"] = {(t.group.empty() ? "core" : t.group) + "_" + t.version};
  std::vector<std::string> body_types = op.patch ? patch_types(t) : object_types(t);
  std::vector<std::string> answer_types = object_types(t);
  auto schema_ref = [&](const std::string& name) { return OJson{{"$ref", openapi_ref(v, name)}}; };
  if (!op.body.empty()) {
    if (v == OpenApiVersion::V3) {
      OJson content = OJson::object();
      for (const std::string& type : body_types)
        content[type] = {{"schema", schema_ref(op.body)}};
      o["requestBody"] = {{"content", content}, {"required", true}};
      o["parameters"] = write_params(op.patch, v);
    } else {
      o["consumes"] = body_types;
      OJson params = write_params(op.patch, v);
      params.insert(params.begin(), OJson{{"name", "body"},
                                          {"in", "body"},
                                          {"required", true},
                                          {"schema", schema_ref(op.body)}});
      o["parameters"] = params;
    }
  }
  OJson ok = {{"description", "OK"}};
  if (v == OpenApiVersion::V3) {
    OJson content = OJson::object();
    for (const std::string& type : answer_types)
      content[type] = {{"schema", schema_ref(op.schema)}};
    ok["content"] = content;
  } else {
    ok["schema"] = schema_ref(op.schema);
    o["produces"] = answer_types;
  }
  o["responses"] = {{"200", ok}, {"401", {{"description", "Unauthorized"}}}};
  o["x-kubernetes-action"] = op.action;
  if (op.sub_kind == "Scale") {
    o["x-kubernetes-group-version-kind"] = {
        {"group", "autoscaling"}, {"kind", "Scale"}, {"version", "v1"}};
  } else {
    o["x-kubernetes-group-version-kind"] = {
        {"group", t.group}, {"kind", t.kind}, {"version", t.version}};
  }
  return o;
}

}  // namespace

void add_resource_paths(const ResourceType& t, const ResourceSchemas& s, OpenApiVersion v,
                        OJson& paths) {
  std::string base =
      (t.group.empty() ? "/api/" + t.version : "/apis/" + t.group + "/" + t.version) +
      (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural;
  const std::string status = kMetaPrefix + "Status";
  paths[base] = {
      {"get", operation(t, {"list", "list", "list objects of kind", s.list, "", false, ""}, v)},
      {"post", operation(t, {"post", "create", "create a", s.object, s.object, false, ""}, v)},
      {"delete", operation(t,
                           {"deletecollection", "deleteCollection", "delete collection of", status,
                            "", false, ""},
                           v)}};
  paths[base + "/{name}"] = {
      {"get", operation(t, {"get", "read", "read the specified", s.object, "", false, ""}, v)},
      {"put",
       operation(t, {"put", "replace", "replace the specified", s.object, s.object, false, ""}, v)},
      {"delete", operation(t, {"delete", "delete", "delete a", status, "", false, ""}, v)},
      {"patch", operation(t,
                          {"patch", "patch", "partially update the specified", s.object,
                           kMetaPrefix + "Patch", true, ""},
                          v)}};
  if (t.status_subresource) {
    paths[base + "/{name}/status"] = {
        {"get",
         operation(
             t, {"get", "read", "read status of the specified", s.object, "", false, "Status"}, v)},
        {"put", operation(t,
                          {"put", "replace", "replace status of the specified", s.object, s.object,
                           false, "Status"},
                          v)},
        {"patch", operation(t,
                            {"patch", "patch", "partially update status of the specified", s.object,
                             kMetaPrefix + "Patch", true, "Status"},
                            v)}};
  }
  if (t.scale && !s.scale.empty()) {
    paths[base + "/{name}/scale"] = {
        {"get",
         operation(t, {"get", "read", "read scale of the specified", s.scale, "", false, "Scale"},
                   v)},
        {"put", operation(t,
                          {"put", "replace", "replace scale of the specified", s.scale, s.scale,
                           false, "Scale"},
                          v)},
        {"patch", operation(t,
                            {"patch", "patch", "partially update scale of the specified", s.scale,
                             kMetaPrefix + "Patch", true, "Scale"},
                            v)}};
  }
}

}  // namespace respool::sandbox
