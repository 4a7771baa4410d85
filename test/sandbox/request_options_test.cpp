// Query options and decoding defaults as kube-apiserver v1.32 checks and applies them:
// ValidateListOptions, ValidateFieldManager (CreateOptions/UpdateOptions/PatchOptions), the
// annotation key rule (case does not matter), StatefulSet names as DNS labels (other workloads
// get a warning), and a Pod's
// limits defaulting its missing requests (SetDefaults_Pod).

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

namespace {

const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

Json config_map(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
}

std::string message_of(const Reply& r, int status) {
  INFO(r.body);
  REQUIRE(r.status == status);
  return r.json()["message"].get<std::string>();
}

}  // namespace

TEST_CASE("ListOptions are refused as ValidateListOptions refuses them", "[validation][options]") {
  Harness h;
  CHECK(message_of(h.get(kConfigMaps + "?resourceVersionMatch=NotOlderThan"), 422) ==
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
        "resourceVersionMatch is forbidden unless resourceVersion is provided");
  auto both = h.get(kConfigMaps + "?resourceVersion=0&resourceVersionMatch=Exact&continue=x");
  CHECK(message_of(both, 422) ==
        "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: "
        "resourceVersionMatch is forbidden when continue is provided, resourceVersionMatch: "
        "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"]");
  CHECK(both.json()["details"]["kind"] == "ListOptions");
  CHECK(message_of(h.get(kConfigMaps + "?resourceVersion=1&resourceVersionMatch=Newest"), 422) ==
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: "
        "\"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"");
  CHECK(message_of(h.get(kConfigMaps + "?sendInitialEvents=true"), 422) ==
        "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: "
        "sendInitialEvents is forbidden for list");
  CHECK(h.get(kConfigMaps + "?resourceVersion=0&resourceVersionMatch=NotOlderThan").status == 200);
}

TEST_CASE("fieldManager: at most 128 printable bytes", "[validation][options]") {
  Harness h;
  std::string long_name(129, 'm');
  CHECK(message_of(h.post(kConfigMaps + "?fieldManager=" + long_name, config_map("a")), 422) ==
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than "
        "128 bytes");
  REQUIRE(h.post(kConfigMaps + "?fieldManager=" + std::string(128, 'm'), config_map("a")).status ==
          201);
  Json cm = h.get(kConfigMaps + "/a").json();
  CHECK(message_of(h.put(kConfigMaps + "/a?fieldManager=tab%09bed", cm), 422) ==
        "UpdateOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: \"tab\\tbed\": "
        "invalid character U+0009 (at position 3)");
  CHECK(message_of(h.patch(kConfigMaps + "/a?fieldManager=a%01b", {{"data", {{"k", "v"}}}}), 422) ==
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: \"a\\x01b\": "
        "invalid character U+0001 (at position 1)");
}

TEST_CASE("Annotation keys are qualified names whatever their case", "[validation][options]") {
  Harness h;
  Json cm = config_map("upper");
  cm["metadata"]["annotations"] = {{"Example.COM/Owner", "x"}};
  CHECK(h.post(kConfigMaps, cm).status == 201);
  cm = config_map("huge");
  cm["metadata"]["annotations"] = {{"a", std::string(256 * 1024, 'x')}};
  CHECK(message_of(h.post(kConfigMaps, cm), 422) ==
        "ConfigMap \"huge\" is invalid: metadata.annotations: Too long: may not be more than "
        "262144 bytes");
}

TEST_CASE("StatefulSet names are DNS labels, other workloads warn", "[validation][options]") {
  Harness h;
  Json sts = {{"apiVersion", "apps/v1"},
              {"kind", "StatefulSet"},
              {"metadata", {{"name", "db.main"}}},
              {"spec",
               {{"selector", {{"matchLabels", {{"app", "db"}}}}},
                {"template",
                 {{"metadata", {{"labels", {{"app", "db"}}}}},
                  {"spec", {{"containers", {{{"name", "c"}, {"image", "db:1"}}}}}}}}}}};
  CHECK(message_of(h.post("/apis/apps/v1/namespaces/default/statefulsets", sts), 422) ==
        "StatefulSet.apps \"db.main\" is invalid: metadata.name: Invalid value: \"db.main\": "
        "must not contain dots");
  // A Deployment may have such a name: the real server only warns (its pods' hostnames).
  Json web = sts;
  web["kind"] = "Deployment";
  web["metadata"]["name"] = "web.v1";
  auto created = h.post("/apis/apps/v1/namespaces/default/deployments", web);
  REQUIRE(created.status == 201);
  CHECK(created.header("Warning") ==
        "299 - \"metadata.name: this is used in Pod names and hostnames, which can result in "
        "surprising behavior; a DNS label is recommended: [must not contain dots]\"");
}

TEST_CASE("A Pod's limits default its missing requests", "[validation][options]") {
  Harness h;
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "gpu"}}},
              {"spec",
               {{"containers",
                 {{{"name", "c"},
                   {"image", "train:1"},
                   {"resources",
                    {{"limits", {{"nvidia.com/gpu", "2"}, {"memory", "1Gi"}}},
                     {"requests", {{"memory", "512Mi"}}}}}}}}}}};
  auto r = h.post("/api/v1/namespaces/default/pods", pod);
  REQUIRE(r.status == 201);
  CHECK(r.json()["spec"]["containers"][0]["resources"]["requests"] ==
        Json{{"memory", "512Mi"}, {"nvidia.com/gpu", "2"}});
}
