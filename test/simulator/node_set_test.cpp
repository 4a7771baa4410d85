#include <catch2/catch.hpp>

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/node_set.hpp"

using namespace respool::sandbox;
using Json = nlohmann::json;

TEST_CASE("the node inventory YAML is read with its defaults", "[simulator]") {
  auto inventory = parse_node_inventory(R"(
nodes:
- flavor: gpu-8x-a100
  zone: az-1
  count: 2
  capacity: {cpu: "96", memory: 1Ti, nvidia.com/gpu: "8"}
  driverVersion: "535.104.05"
  labels: {rack: r1}
- flavor: cpu-64
  namePrefix: cpu
)");
  REQUIRE(inventory);
  CHECK(inventory->flavor_label == "node.kubernetes.io/instance-type");
  CHECK(inventory->zone_label == "topology.kubernetes.io/zone");
  REQUIRE(inventory->sets.size() == 2);
  const auto& gpu = inventory->sets[0];
  CHECK(gpu.count == 2);
  CHECK(gpu.capacity.at("nvidia.com/gpu") == "8");
  CHECK(gpu.driver_version == "535.104.05");
  CHECK(gpu.labels.at("rack") == "r1");
  CHECK(sim::node_name(gpu, 1) == "gpu-8x-a100-az-1-1");
  CHECK(inventory->sets[1].count == 1);
  CHECK(sim::node_name(inventory->sets[1], 1) == "cpu-1");
}

TEST_CASE("the inventory's label keys are configurable", "[simulator]") {
  auto inventory = parse_node_inventory(R"(
flavorLabel: example.com/flavor
zoneLabel: example.com/zone
nodes: [{flavor: f, zone: z}]
)");
  REQUIRE(inventory);
  auto nodes = sim::node_objects(*inventory, inventory->sets[0], std::chrono::system_clock::now());
  REQUIRE(nodes.size() == 1);
  CHECK(sim::label(nodes[0], "example.com/flavor") == "f");
  CHECK(sim::label(nodes[0], "example.com/zone") == "z");
  CHECK_FALSE(sim::label(nodes[0], "node.kubernetes.io/instance-type"));
}

TEST_CASE("bad inventories are refused with the field named", "[simulator]") {
  CHECK(parse_node_inventory("nodes: [{zone: z}]").error() == "nodes[0].flavor: required");
  CHECK(parse_node_inventory("nodes: [{flavor: f, count: -1}]").error() ==
        "nodes[0].count: must be a non-negative integer");
  CHECK(parse_node_inventory("nodes: [{flavor: f, capacity: {cpu: lots}}]")
            .error()
            .starts_with("nodes[0].capacity.cpu: "));
  CHECK(parse_node_inventory("nodes: [{flavor: f, colour: red}]").error() ==
        "nodes[0].colour: unknown field");
  CHECK(parse_node_inventory("nodes: {flavor: f}").error() == "nodes: must be a list");
  CHECK(parse_node_inventory("").has_value());
}

TEST_CASE("a registered node is Ready with capacity = allocatable and a kubelet's info",
          "[simulator]") {
  NodeInventory inventory;
  NodeSetSpec set;
  set.flavor = "gpu-8x-a100";
  set.zone = "az-1";
  set.count = 3;
  set.name_prefix = "gpu";
  set.capacity = {{"cpu", "96"}, {"nvidia.com/gpu", "8"}, {"memory", "1024Gi"}};
  set.driver_version = "535.104.05";
  auto nodes = sim::node_objects(inventory, set, std::chrono::system_clock::now());
  REQUIRE(nodes.size() == 3);
  const Json& n = nodes[2];
  CHECK(sim::string_at(n, {"metadata", "name"}) == "gpu-3");
  CHECK(sim::label(n, "node.kubernetes.io/instance-type") == "gpu-8x-a100");
  CHECK(sim::label(n, "topology.kubernetes.io/zone") == "az-1");
  CHECK(sim::label(n, "kubernetes.io/hostname") == "gpu-3");
  CHECK(sim::label(n, "kubernetes.io/os") == "linux");
  CHECK(sim::label(n, "respool.io/driver-version") == "535.104.05");
  CHECK(sim::annotation(n, sim::kSimulatedAnnotation) == "true");
  CHECK(n["status"]["capacity"] == n["status"]["allocatable"]);
  CHECK(n["status"]["capacity"]["nvidia.com/gpu"] == "8");
  CHECK(n["status"]["capacity"]["memory"] == "1Ti");
  CHECK(n["status"]["capacity"]["pods"] == "110");  // a default
  CHECK(sim::condition_status(n, "Ready") == respool::kube::ConditionStatus::True);
  for (const char* type : {"MemoryPressure", "DiskPressure", "PIDPressure"})
    CHECK(sim::condition_status(n, type) == respool::kube::ConditionStatus::False);
  CHECK(sim::find_condition(n, "Ready")->contains("lastHeartbeatTime"));
  CHECK(sim::string_at(n, {"status", "nodeInfo", "kubeletVersion"}).starts_with("v1.32."));
  CHECK(sim::string_at(n, {"status", "nodeInfo", "operatingSystem"}) == "linux");
  CHECK(sim::string_at(n, {"status", "nodeInfo", "architecture"}) == "amd64");
  CHECK(sim::string_at(n, {"status", "nodeInfo", "machineID"}).size() == 32);
  CHECK_FALSE(sim::label(nodes[0], "respool.io/pool"));
}
