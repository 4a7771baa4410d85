#include "sandbox/apiserver/discovery/discovery.hpp"

#include <openssl/evp.h>

#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/handlers/negotiation.hpp"
#include "sandbox/apiserver/handlers/request_info.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"

namespace respool::sandbox {
namespace {

OJson group_version(const std::string& group, const std::string& version) {
  return {{"groupVersion", group.empty() ? version : group + "/" + version}, {"version", version}};
}

OJson api_group(const GroupVersions& g) {
  OJson versions = OJson::array();
  for (const std::string& v : g.versions)
    versions.push_back(group_version(g.name, v));
  return {{"name", g.name},
          {"versions", versions},
          {"preferredVersion", group_version(g.name, g.versions.front())}};
}

OJson resource_list(const Registry& registry, const std::string& group,
                    const std::string& version) {
  OJson list;
  list["kind"] = "APIResourceList";
  if (!group.empty()) list["apiVersion"] = "v1";
  list["groupVersion"] = group.empty() ? version : group + "/" + version;
  OJson resources = OJson::array();
  for (const TypePtr& t : registry.resources(group, version)) {
    OJson r;
    r["name"] = t->plural;
    r["singularName"] = t->singular;
    r["namespaced"] = t->namespaced;
    r["kind"] = t->kind;
    r["verbs"] = t->verbs;
    if (!t->short_names.empty()) r["shortNames"] = t->short_names;
    if (!t->categories.empty()) r["categories"] = t->categories;
    if (!t->storage_version_hash.empty()) r["storageVersionHash"] = t->storage_version_hash;
    resources.push_back(std::move(r));
    for (const SubresourceInfo& s : t->subresources) {
      OJson sub;
      sub["name"] = t->plural + "/" + s.name;
      sub["singularName"] = "";
      sub["namespaced"] = t->namespaced;
      if (!s.group.empty() || !s.version.empty()) {
        sub["group"] = s.group;
        sub["version"] = s.version;
      }
      sub["kind"] = s.kind.empty() ? t->kind : s.kind;
      sub["verbs"] = s.verbs;
      resources.push_back(std::move(sub));
    }
  }
  list["resources"] = std::move(resources);
  return list;
}

OJson response_kind(const ResourceType&, const std::string& group, const std::string& version,
                    const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

OJson aggregated_group(const Registry& registry, const GroupVersions& g) {
  OJson item;
  item["metadata"] = OJson::object();
  if (!g.name.empty()) item["metadata"]["name"] = g.name;
  item["metadata"]["creationTimestamp"] = nullptr;
  OJson versions = OJson::array();
  for (const std::string& v : g.versions) {
    OJson resources = OJson::array();
    for (const TypePtr& t : registry.resources(g.name, v)) {
      OJson r;
      r["resource"] = t->plural;
      // Built-ins leave group and version empty; custom resources name them.
      r["responseKind"] = t->custom() ? response_kind(*t, t->group, t->version, t->kind)
                                      : response_kind(*t, "", "", t->kind);
      r["scope"] = t->namespaced ? "Namespaced" : "Cluster";
      r["singularResource"] = t->singular;
      r["verbs"] = t->verbs;
      if (!t->short_names.empty()) r["shortNames"] = t->short_names;
      if (!t->categories.empty()) r["categories"] = t->categories;
      if (!t->subresources.empty()) {
        OJson subs = OJson::array();
        for (const SubresourceInfo& s : t->subresources) {
          OJson sub;
          sub["subresource"] = s.name;
          if (!s.group.empty() || !s.version.empty()) {
            sub["responseKind"] = response_kind(*t, s.group, s.version, s.kind);
          } else if (t->custom()) {
            sub["responseKind"] =
                response_kind(*t, t->group, t->version, s.kind.empty() ? t->kind : s.kind);
          } else {
            sub["responseKind"] = response_kind(*t, "", "", s.kind.empty() ? t->kind : s.kind);
          }
          sub["verbs"] = s.verbs;
          subs.push_back(std::move(sub));
        }
        r["subresources"] = std::move(subs);
      }
      resources.push_back(std::move(r));
    }
    versions.push_back({{"version", v}, {"resources", resources}, {"freshness", "Current"}});
  }
  item["versions"] = std::move(versions);
  return item;
}

std::string etag_of(const std::string& body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(body.data(), body.size(), digest, &len, EVP_sha256(), nullptr);
  static const char* hex = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out + "\"";
}

http::Response aggregated(const Registry& registry, bool core, const std::string& version,
                          const http::Request& request) {
  OJson list;
  list["kind"] = "APIGroupDiscoveryList";
  list["apiVersion"] = "apidiscovery.k8s.io/" + version;
  list["metadata"] = OJson::object();
  OJson items = OJson::array();
  for (const GroupVersions& g : registry.groups()) {
    if (core != g.name.empty()) continue;
    items.push_back(aggregated_group(registry, g));
  }
  list["items"] = std::move(items);
  std::string body = list.dump();
  std::string etag = etag_of(body);
  http::Response r = json_response(
      200, std::move(body),
      "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList");
  r.headers.set("Cache-Control", "public");
  r.headers.set("Vary", "Accept");
  r.headers.set("Etag", etag);
  if (auto inm = request.headers.get("If-None-Match"); inm && *inm == etag) {
    r.status = 304;
    r.body.clear();
  }
  return r;
}

}  // namespace

http::Response serve_version() {
  OJson v = {{"major", "1"},
             {"minor", "32"},
             {"gitVersion", "v1.32.13"},
             {"gitCommit", "respool-sandbox"},
             {"gitTreeState", "clean"},
             {"buildDate", "2026-01-01T00:00:00Z"},
             {"goVersion", "go1.23.5"},
             {"compiler", "gc"},
             {"platform", "linux/amd64"}};
  return json_response(200, v.dump());
}

std::optional<http::Response> serve_discovery(const Registry& registry, const std::string& path,
                                              const http::Request& request,
                                              const std::string& server_address) {
  std::vector<std::string> parts = split_path(path);
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  std::string accept(request.headers.get("Accept").value_or(""));
  bool root = parts.size() == 1;
  if (parts[0] == "api" && parts.size() > 2) return std::nullopt;
  if (parts[0] != "api" && parts[0] != "apis") return std::nullopt;
  if (root) {
    auto wanted = negotiate_discovery(accept);
    if (!wanted) return error_response(not_acceptable());
    if (!wanted->empty()) return aggregated(registry, parts[0] == "api", *wanted, request);
    if (parts[0] == "api") {
      OJson v = {{"kind", "APIVersions"},
                 {"versions", {"v1"}},
                 {"serverAddressByClientCIDRs",
                  {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
      return json_response(200, v.dump());
    }
    OJson list = {{"kind", "APIGroupList"}, {"apiVersion", "v1"}};
    OJson groups = OJson::array();
    for (const GroupVersions& g : registry.groups()) {
      if (!g.name.empty()) groups.push_back(api_group(g));
    }
    list["groups"] = std::move(groups);
    return json_response(200, list.dump());
  }
  if (!negotiate(accept, false)) return error_response(not_acceptable());
  if (parts[0] == "api") {
    if (parts[1] != "v1") return std::nullopt;
    return json_response(200, resource_list(registry, "", "v1").dump());
  }
  const std::string& group = parts[1];
  if (group.empty()) return std::nullopt;
  for (const GroupVersions& g : registry.groups()) {
    if (g.name != group || g.name.empty()) continue;
    if (parts.size() == 2) {
      OJson doc = api_group(g);
      OJson out = {{"kind", "APIGroup"}, {"apiVersion", "v1"}};
      for (auto it = doc.begin(); it != doc.end(); ++it)
        out[it.key()] = it.value();
      return json_response(200, out.dump());
    }
    if (std::find(g.versions.begin(), g.versions.end(), parts[2]) == g.versions.end()) {
      return std::nullopt;
    }
    return json_response(200, resource_list(registry, group, parts[2]).dump());
  }
  return std::nullopt;
}

}  // namespace respool::sandbox
