// Networks (W1–W5), deletion (P14) and abnormal nodes (F1, F2, F4, F5).
#include "test/reconcilers/harness.hpp"

using namespace respool;
using namespace respool::test;

namespace {

std::pair<std::string, std::string> ready(const Json& object) {
  for (const auto& c : object.value("status", Json::object()).value("conditions", Json::array())) {
    if (c["type"] == "Ready")
      return {c.value("status", ""), c.value("reason", "") + ": " + c.value("message", "")};
  }
  return {"", ""};
}

const char* kCpuNodes = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 3, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
- {flavor: gpu-8x-a100, zone: az-1, count: 2, namePrefix: a100-, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
)";

}  // namespace

TEST_CASE("networks: presets, conflicts, the 15-network limit",
          "[reconcilers][rule:W1][rule:W2][rule:W3]") {
  Harness h({});
  h.apply(network_manifest("preset"), kube::resources::networks);
  REQUIRE(h.eventually([&] { return ready(h.network("preset")).first == "True"; }));
  CHECK(h.network("preset")["status"]["cidr"] == "192.168.0.0/17");  // the first preset

  h.apply(network_manifest("custom", "10.10.0.0/16"), kube::resources::networks);
  REQUIRE(h.eventually([&] { return ready(h.network("custom")).first == "True"; }));
  h.apply(network_manifest("newer", "10.10.128.0/17"), kube::resources::networks);
  REQUIRE(h.eventually([&] { return ready(h.network("newer")).first == "False"; }));
  auto [status, why] = ready(h.network("newer"));
  CHECK_THAT(why, Catch::StartsWith("CIDRConflict") && Catch::Contains("custom"));
  CHECK(ready(h.network("custom")).first == "True");  // the older keeps its block

  h.apply(network_manifest("containers", "172.16.4.0/24"), kube::resources::networks);
  REQUIRE(h.eventually([&] { return ready(h.network("containers")).first == "False"; }));
  CHECK_THAT(ready(h.network("containers")).second, Catch::Contains("172.16.0.0/16"));

  // Up to 15 networks are admitted; the 16th is refused in its status, not deleted (W2).
  // Names sort in creation order, so that creations within one second keep their order.
  auto z = [](int i) { return std::string(i < 10 ? "z-0" : "z-") + std::to_string(i); };
  for (int i = 0; i < 12; ++i) {
    h.apply(network_manifest(z(i), "10." + std::to_string(150 + i) + ".0.0/16"),
            kube::resources::networks);
  }
  REQUIRE(h.eventually(
      [&] { return ready(h.network(z(11))).second.rfind("TooManyNetworks", 0) == 0; }));
  CHECK(h.client().get(kube::resources::networks, "", z(11)));
  CHECK(ready(h.network(z(10))).first == "True");
  // One goes: the 16th is admitted.
  REQUIRE(h.client().remove(kube::resources::networks, "", z(0)));
  REQUIRE(h.eventually([&] { return ready(h.network(z(11))).first == "True"; }));
}

TEST_CASE("deleting a pool releases everything; a network in use stays",
          "[reconcilers][rule:P14][rule:W5][rule:A1]") {
  Harness h({.nodes_yaml = kCpuNodes});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 2}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));
  REQUIRE(h.eventually([&] {
    return h.client()
        .get(kube::resources::daemonsets, "respool-system", "p-training-agent")
        .has_value();
  }));

  // W5: the network cannot go while the pool uses it.
  REQUIRE(h.client().remove(kube::resources::networks, "", "net-a"));
  REQUIRE(h.eventually([&] { return ready(h.network("net-a")).second.rfind("InUse", 0) == 0; }));
  CHECK(h.network("net-a")["metadata"].contains("deletionTimestamp"));

  // P14: delete the pool; its nodes come back free, its plug-ins go, then the network too.
  REQUIRE(h.client().remove(kube::resources::resourcepools, "", "p"));
  REQUIRE(
      h.eventually([&] { return !h.client().get(kube::resources::resourcepools, "", "p"); }, 90s));
  CHECK(h.pool_nodes("p").empty());
  for (const auto& n : h.nodes()) {
    CHECK_FALSE(has_taint(n, "respool.io/pool"));
    CHECK(label(n, "respool.io/job-type.training").empty());
  }
  CHECK_FALSE(h.client().get(kube::resources::daemonsets, "respool-system", "p-training-agent"));
  REQUIRE(h.eventually([&] { return !h.client().get(kube::resources::networks, "", "net-a"); }));
  REQUIRE(h.eventually([&] {
    int deletes = 0;
    for (const auto& line : h.audit_lines()) {
      deletes += line.value("operation", "") == "DeletePoolV2" ||
                 line.value("operation", "") == "DeleteNetworksV1";
    }
    return deletes == 2;
  }));
}

TEST_CASE("abnormal nodes degrade the pool and it recovers when they heal",
          "[reconcilers][rule:F1][rule:F2][rule:F4][rule:F5][rule:P8]") {
  Harness h({.nodes_yaml = kCpuNodes});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-a", Json::array({{{"flavor", "gpu-8x-a100"}, {"count", 2}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));
  auto names = h.pool_nodes("p");
  REQUIRE(names.size() == 2);
  const std::string first = names[0]["metadata"]["name"];
  const std::string second = names[1]["metadata"]["name"];
  auto degraded = [&] {
    for (const auto& c : h.pool("p")["status"].value("conditions", Json::array())) {
      if (c["type"] == "Degraded") return c.value("status", "") == "True";
    }
    return false;
  };
  auto counts = [&] { return h.pool("p")["status"]["nodes"]; };

  // F2: a node that stops being Ready is abnormal.
  REQUIRE(h.simulator().add_fault(first, "NotReady"));
  REQUIRE(h.eventually([&] { return counts()["abnormal"] == 1 && degraded(); }));
  CHECK(h.phase("p") == "Running");
  // F5: fewer accelerators than the flavor promises.
  REQUIRE(h.simulator().add_fault(second, "AcceleratorLoss=1"));
  REQUIRE(h.eventually([&] { return counts()["abnormal"] == 2 && h.phase("p") == "Abnormal"; }));
  CHECK(h.eventually([&] {
    return h.has_event("p", "PoolStatusChange", "Pool status changed, from Running to Abnormal.");
  }));
  // F4: an operational code is not a fault.
  REQUIRE(h.simulator().heal_all(first));
  REQUIRE(h.simulator().heal_all(second));
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running" && !degraded(); }));
  CHECK(h.eventually([&] {
    return h.has_event("p", "PoolStatusChange", "Pool status changed, from Abnormal to Running.");
  }));
  REQUIRE(h.simulator().add_fault(first, "Isolate=A050801"));  // a reserved standby node
  REQUIRE(h.eventually([&] { return counts()["available"] == 1; }));
  CHECK(counts()["abnormal"] == 0);
  CHECK_FALSE(degraded());
  // F1: a fault isolation code.
  REQUIRE(h.simulator().heal_all(first));
  REQUIRE(h.simulator().add_fault(first, "Isolate=A050101"));
  REQUIRE(h.eventually([&] { return counts()["abnormal"] == 1 && degraded(); }));
}
