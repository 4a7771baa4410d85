// Node ports are allocated cluster-wide as kube-apiserver's allocator does (a port another
// Service holds is the 422 "provided port is already allocated", automatic picks skip taken
// ports, a deleted Service frees its ports), and the `kubernetes` Service of namespace default
// comes back when deleted, as the apiserver's kubernetesservice controller puts it back.

#include <catch2/catch.hpp>

#include "harness.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::Json;

namespace {

const std::string kServices = "/api/v1/namespaces/default/services";

Json node_port_service(const std::string& name, Json ports) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}}},
          {"spec", {{"type", "NodePort"}, {"selector", {{"app", name}}}, {"ports", ports}}}};
}

}  // namespace

TEST_CASE("Node ports are unique in the cluster", "[services][allocation]") {
  Harness h;
  REQUIRE(h.post(kServices, node_port_service("a", {{{"port", 80}, {"nodePort", 30080}}})).status ==
          201);
  auto taken = h.post(kServices, node_port_service("b", {{{"port", 80}, {"nodePort", 30080}}}));
  INFO(taken.body);
  REQUIRE(taken.status == 422);
  Json status = taken.json();
  CHECK(status["message"] ==
        "Service \"b\" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is "
        "already allocated");
  CHECK(status["details"]["causes"] ==
        Json::array({{{"reason", "FieldValueInvalid"},
                      {"message", "Invalid value: 30080: provided port is already allocated"},
                      {"field", "spec.ports[0].nodePort"}}}));

  // An update that asks for a taken port is refused too; keeping its own is fine.
  REQUIRE(h.post(kServices, node_port_service("b", {{{"port", 80}, {"nodePort", 30081}}})).status ==
          201);
  Json b = h.get(kServices + "/b").json();
  b["spec"]["ports"][0]["nodePort"] = 30080;
  auto update = h.put(kServices + "/b", b);
  CHECK(update.status == 422);
  CHECK(update.json()["message"] ==
        "Service \"b\" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is "
        "already allocated");
  b["spec"]["ports"][0]["nodePort"] = 30081;
  b["metadata"]["labels"] = {{"tier", "web"}};
  CHECK(h.put(kServices + "/b", b).status == 200);

  // One Service holding every port but 31000: an automatic pick can only be 31000.
  Json ports = Json::array();
  for (int port = 30000, i = 0; port <= 32767; ++port) {
    if (port == 31000 || port == 30080 || port == 30081) continue;
    ports.push_back({{"name", "p" + std::to_string(i)}, {"port", ++i}, {"nodePort", port}});
  }
  auto filler = h.post(kServices, node_port_service("filler", ports));
  INFO(filler.body.substr(0, 500));
  REQUIRE(filler.status == 201);
  auto automatic = h.post(kServices, node_port_service("auto", {{{"port", 80}}}));
  REQUIRE(automatic.status == 201);
  CHECK(automatic.json()["spec"]["ports"][0]["nodePort"] == 31000);

  // Deleting a Service frees its ports.
  REQUIRE(h.del(kServices + "/a").status == 200);
  CHECK(
      h.post(kServices, node_port_service("again", {{{"port", 80}, {"nodePort", 30080}}})).status ==
      201);
}

TEST_CASE("The kubernetes Service comes back when deleted", "[services]") {
  Harness h;
  h.engine().publish_kubernetes_service("127.0.0.1", 6443);
  REQUIRE(h.get(kServices + "/kubernetes").status == 200);
  REQUIRE(h.del(kServices + "/kubernetes").status == 200);
  REQUIRE(h.del("/api/v1/namespaces/default/endpoints/kubernetes").status == 200);
  auto back = h.get(kServices + "/kubernetes");
  REQUIRE(back.status == 200);
  CHECK(back.json()["spec"]["clusterIP"] == "10.96.0.1");
  CHECK(back.json()["spec"]["ports"][0]["port"] == 443);
  auto endpoints = h.get("/api/v1/namespaces/default/endpoints/kubernetes");
  REQUIRE(endpoints.status == 200);
  CHECK(endpoints.json()["subsets"][0]["ports"][0]["name"] == "https");
}
