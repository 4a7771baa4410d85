// Discovery and OpenAPI documents, in the shapes kubectl 1.32 reads.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "reference.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;
namespace ref = respool::sandbox::testing::reference;

namespace {
const char* kAggregated =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
}

TEST_CASE("aggregated discovery answers v2 with its content type, Vary and ETag",
          "[conformance][discovery]") {
  Harness h;
  auto api = h.get("/api?timeout=32s", kAggregated);
  REQUIRE(api.status == 200);
  REQUIRE(api.header("Content-Type") ==
          "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  REQUIRE(api.header("Vary") == "Accept");
  REQUIRE(api.header("Cache-Control") == "public");
  REQUIRE_FALSE(api.header("Etag").empty());
  Json list = api.json();
  REQUIRE(list["kind"] == "APIGroupDiscoveryList");
  REQUIRE(list["apiVersion"] == "apidiscovery.k8s.io/v2");
  REQUIRE(list["items"].size() == 1);
  bool pods = false;
  for (const Json& r : list["items"][0]["versions"][0]["resources"]) {
    if (r["resource"] != "pods") continue;
    pods = true;
    REQUIRE(r["responseKind"] == Json({{"group", ""}, {"version", ""}, {"kind", "Pod"}}));
    REQUIRE(r["shortNames"] == Json::array({"po"}));
    bool eviction = false;
    for (const Json& s : r["subresources"]) {
      if (s["subresource"] == "eviction") {
        eviction = true;
        REQUIRE(s["responseKind"] ==
                Json({{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}}));
      }
    }
    REQUIRE(eviction);
  }
  REQUIRE(pods);
  auto again =
      h.call({"GET", "/api", "", {{"Accept", kAggregated}, {"If-None-Match", api.header("Etag")}}});
  REQUIRE(again.status == 304);

  auto apis = h.get("/apis", kAggregated).json();
  std::vector<std::string> groups;
  for (const Json& g : apis["items"])
    groups.push_back(g["metadata"]["name"]);
  REQUIRE(groups.size() == 19);
  REQUIRE(groups[0] == "apiregistration.k8s.io");
  REQUIRE(groups[1] == "apps");
}

TEST_CASE("legacy discovery documents", "[conformance][discovery]") {
  Harness h;
  auto api = h.get("/api").json();
  REQUIRE(api["kind"] == "APIVersions");
  REQUIRE(api["versions"] == Json::array({"v1"}));
  auto apis = h.get("/apis").json();
  REQUIRE(apis["kind"] == "APIGroupList");
  auto core = h.get("/api/v1", "application/json, */*").json();
  REQUIRE(core["kind"] == "APIResourceList");
  REQUIRE_FALSE(core.contains("apiVersion"));
  bool cm = false;
  for (const Json& r : core["resources"]) {
    if (r["name"] == "configmaps") {
      cm = true;
      REQUIRE(r["storageVersionHash"] == "qFsyl6wFWjQ=");
      REQUIRE(r["verbs"].size() == 8);
    }
  }
  REQUIRE(cm);
  auto apps = h.get("/apis/apps/v1").json();
  REQUIRE(apps["apiVersion"] == "v1");
  REQUIRE(apps["groupVersion"] == "apps/v1");
  auto group = h.get("/apis/apps").json();
  REQUIRE(group["kind"] == "APIGroup");
  REQUIRE(group["preferredVersion"]["groupVersion"] == "apps/v1");
  auto version = h.get("/version").json();
  REQUIRE(version["major"] == "1");
  REQUIRE(version["minor"] == "32");
}

TEST_CASE("the OpenAPI v3 index and documents", "[conformance][openapi]") {
  Harness h;
  REQUIRE(
      h.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", refwidget_crd()).status ==
      201);
  auto index = h.get("/openapi/v3", "application/json, */*");
  REQUIRE(index.status == 200);
  REQUIRE(index.header("Content-Type") == "text/plain; charset=utf-8");
  Json paths = index.json()["paths"];
  REQUIRE(paths.contains("api/v1"));
  std::string url = paths["apis/ref.example.com/v1"]["serverRelativeURL"];
  auto doc = h.get(url);
  REQUIRE(doc.status == 200);
  REQUIRE(doc.header("Cache-Control") == "public, immutable");
  Json schema = doc.json()["components"]["schemas"]["com.example.ref.v1.RefWidget"];
  REQUIRE(schema["x-kubernetes-group-version-kind"] ==
          Json::array({{{"group", "ref.example.com"}, {"kind", "RefWidget"}, {"version", "v1"}}}));
  REQUIRE(schema["properties"]["spec"]["required"] == Json::array({"size", "color"}));
  Json core = h.get("/openapi/v3/api/v1").json();
  REQUIRE(core["components"]["schemas"]["io.k8s.api.core.v1.Pod"]["x-kubernetes-group-version-kind"]
              [0]["kind"] == "Pod");
  REQUIRE(h.get("/openapi/v3/apis/nosuch.io/v1").status == 404);
}
