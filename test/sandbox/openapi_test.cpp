// OpenAPI v3 and v2 documents of built-in kinds, derived from the Kubernetes API's type table:
// what kubectl explain, apply (strategic merge patches) and validation read.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;

namespace {

Json schema_of(const Json& doc, const std::string& name) {
  const Json& schemas = doc.at("components").at("schemas");
  return schemas.contains(name) ? schemas.at(name) : Json();
}

// Follows a v3 property to the definition it refers to (directly or through allOf).
std::string ref_of(const Json& property) {
  if (property.contains("$ref")) return property["$ref"];
  if (property.contains("allOf")) return property["allOf"][0]["$ref"];
  return "";
}

}  // namespace

TEST_CASE("built-in kinds have full v3 schemas with descriptions", "[conformance][openapi]") {
  Harness h;
  Json apps = h.get("/openapi/v3/apis/apps/v1").json();
  Json deployment = schema_of(apps, "io.k8s.api.apps.v1.Deployment");
  CHECK(deployment["x-kubernetes-group-version-kind"] ==
        Json::array({{{"group", "apps"}, {"kind", "Deployment"}, {"version", "v1"}}}));
  CHECK(deployment["description"] ==
        "Deployment enables declarative updates for Pods and ReplicaSets.");
  Json spec = schema_of(apps, "io.k8s.api.apps.v1.DeploymentSpec");
  CHECK(ref_of(spec["properties"]["strategy"]) ==
        "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy");
  CHECK(spec["properties"]["strategy"]["description"] ==
        "The deployment strategy to use to replace existing pods with new ones.");
  CHECK(spec["required"] == Json::array({"selector", "template"}));
  CHECK(spec["properties"]["replicas"] ==
        Json{{"description",
              "Number of desired pods. This is a pointer to distinguish between explicit zero and "
              "not specified. Defaults to 1."},
             {"format", "int32"},
             {"type", "integer"}});
  Json strategy = schema_of(apps, "io.k8s.api.apps.v1.DeploymentStrategy");
  CHECK(strategy["properties"]["type"]["enum"] == Json::array({"Recreate", "RollingUpdate"}));
  CHECK(strategy["properties"]["type"]["description"] ==
        "Type of deployment. Can be \"Recreate\" or \"RollingUpdate\". Default is "
        "RollingUpdate.\n\nPossible enum values:\n - `\"Recreate\"` Kill all existing pods "
        "before creating new ones.\n - `\"RollingUpdate\"` Replace the old ReplicaSets by new one "
        "using rolling update i.e gradually scale down the old ReplicaSets and scale up the new "
        "one.");
  // What kubectl's strategic merge patches are built from.
  Json pod_spec = schema_of(apps, "io.k8s.api.core.v1.PodSpec");
  Json containers = pod_spec["properties"]["containers"];
  CHECK(containers["x-kubernetes-patch-merge-key"] == "name");
  CHECK(containers["x-kubernetes-patch-strategy"] == "merge");
  CHECK(containers["x-kubernetes-list-type"] == "map");
  CHECK(containers["x-kubernetes-list-map-keys"] == Json::array({"name"}));
  CHECK(containers["items"]["default"] == Json::object());
  // Custom encodings: Quantity, IntOrString, Time.
  Json limits = schema_of(apps, "io.k8s.api.core.v1.ResourceRequirements")["properties"]["limits"];
  CHECK(limits["additionalProperties"]["$ref"] ==
        "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity");
  CHECK(schema_of(apps, "io.k8s.apimachinery.pkg.util.intstr.IntOrString")["oneOf"] ==
        Json::array({{{"type", "integer"}}, {{"type", "string"}}}));
  CHECK(schema_of(apps, "io.k8s.apimachinery.pkg.apis.meta.v1.Time")["format"] == "date-time");
  // Inline structs: a Volume's sources beside its name.
  Json volume = schema_of(apps, "io.k8s.api.core.v1.Volume");
  CHECK(volume["properties"].contains("configMap"));
  CHECK(volume["required"] == Json::array({"name"}));
}

TEST_CASE("built-in PATCH operations offer strategic merge patch", "[conformance][openapi]") {
  Harness h;
  Json core = h.get("/openapi/v3/api/v1").json();
  Json patch = core["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
  CHECK(patch["requestBody"]["content"].contains("application/strategic-merge-patch+json"));
  CHECK(patch["operationId"] == "patchCoreV1NamespacedConfigMap");
  bool field_validation = false;
  for (const Json& p : patch["parameters"])
    field_validation = field_validation || p["name"] == "fieldValidation";
  CHECK(field_validation);
  Json apps = h.get("/openapi/v3/apis/apps/v1").json();
  Json scale = apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"];
  CHECK(scale["put"]["x-kubernetes-group-version-kind"] ==
        Json{{"group", "autoscaling"}, {"kind", "Scale"}, {"version", "v1"}});
}

TEST_CASE("the v2 document and its negotiation", "[conformance][openapi]") {
  Harness h;
  auto v2 = h.get("/openapi/v2", "application/json");
  REQUIRE(v2.status == 200);
  Json doc = v2.json();
  CHECK(doc["swagger"] == "2.0");
  Json deployment = doc["definitions"]["io.k8s.api.apps.v1.Deployment"];
  CHECK(deployment["properties"]["spec"]["$ref"] ==
        "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
  Json post = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments"]["post"];
  CHECK(post["parameters"][0]["in"] == "body");
  CHECK(post["x-kubernetes-group-version-kind"]["kind"] == "Deployment");
  CHECK(doc["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"]["type"] == "string");
  // kubectl asks for the gnostic protobuf form only: not served, 406.
  CHECK(h.get("/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf").status ==
        406);
  // The index is stable while nothing changes, and every document it names is served.
  Json index = h.get("/openapi/v3").json();
  CHECK(h.get("/openapi/v3").json() == index);
  for (auto& [key, entry] : index["paths"].items()) {
    INFO(key);
    CHECK(h.get(entry["serverRelativeURL"].get<std::string>()).status == 200);
  }
}
