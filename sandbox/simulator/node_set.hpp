#pragma once
// Free nodes described in YAML (examples/sandbox-nodes.yaml), and the Node objects a kubelet
// would register for them: Ready, capacity = allocatable, nodeInfo of a v1.32 kubelet.
//
//   flavorLabel: node.kubernetes.io/instance-type   # optional (this default)
//   zoneLabel: topology.kubernetes.io/zone           # optional (this default)
//   nodes:
//   - flavor: gpu-8x-a100
//     zone: az-1
//     count: 4                     # default 1
//     namePrefix: gpu-a100-az1     # default <flavor>-<zone> (or <flavor>); nodes <prefix>-1..N
//     capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}
//     driverVersion: "535.104.05"  # optional: the respool.io/driver-version label
//     labels: {rack: r1}           # optional: more labels

#include <chrono>
#include <cstdint>
#include <expected>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox {

struct NodeSetSpec {
  std::string flavor;
  std::string zone;  // "" = no zone label
  int count = 1;
  std::string name_prefix;                      // "" = <flavor>-<zone>, or <flavor>
  std::map<std::string, std::string> capacity;  // quantities as written; defaults below
  std::string driver_version;                   // "" = no driver label
  std::map<std::string, std::string> labels;
};

struct NodeInventory {
  std::string flavor_label = "node.kubernetes.io/instance-type";
  std::string zone_label = "topology.kubernetes.io/zone";
  std::vector<NodeSetSpec> sets;
};

// Errors name the entry and the field ("nodes[2].count: must be a non-negative integer").
std::expected<NodeInventory, std::string> parse_node_inventory(std::string_view yaml);

namespace sim {

// Capacity a node set gets for what it does not state.
inline const std::map<std::string, std::string>& default_capacity() {
  static const std::map<std::string, std::string> defaults = {
      {"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}, {"ephemeral-storage", "500Gi"}};
  return defaults;
}

std::string node_name(const NodeSetSpec& set, int index);  // index from 1
// The Node objects of a set, ready to POST (status included: a kubelet registers it so).
std::vector<nlohmann::json> node_objects(const NodeInventory& inventory, const NodeSetSpec& set,
                                         std::chrono::system_clock::time_point now);
// The four conditions of a healthy kubelet.
nlohmann::json healthy_conditions(std::chrono::system_clock::time_point now);
// A stable private address for a node (10.x.y.z from its name).
std::string node_address(std::string_view name);

}  // namespace sim
}  // namespace respool::sandbox
