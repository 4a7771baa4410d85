#include "sandbox/simulator/node_set.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include <yaml-cpp/yaml.h>

#include "apimachinery/quantity.hpp"
#include "apimachinery/time.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/template_hash.hpp"

namespace respool::sandbox {
namespace {

using Json = nlohmann::json;

std::expected<std::map<std::string, std::string>, std::string> string_map(
    const YAML::Node& node, const std::string& where) {
  std::map<std::string, std::string> out;
  if (!node || node.IsNull()) return out;
  if (!node.IsMap()) return std::unexpected(where + ": must be a map");
  for (const auto& item : node) {
    if (!item.second.IsScalar())
      return std::unexpected(where + "." + item.first.Scalar() + ": must be a string");
    out[item.first.Scalar()] = item.second.Scalar();
  }
  return out;
}

std::expected<std::string, std::string> scalar(const YAML::Node& node, const std::string& where) {
  if (!node || node.IsNull()) return std::string();
  if (!node.IsScalar()) return std::unexpected(where + ": must be a string");
  return node.Scalar();
}

std::expected<NodeSetSpec, std::string> parse_set(const YAML::Node& node,
                                                  const std::string& where) {
  if (!node.IsMap()) return std::unexpected(where + ": must be a map");
  static const std::vector<std::string> known = {"flavor",   "zone",          "count", "namePrefix",
                                                 "capacity", "driverVersion", "labels"};
  for (const auto& item : node) {
    const std::string key = item.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end())
      return std::unexpected(where + "." + key + ": unknown field");
  }
  NodeSetSpec set;
  auto flavor = scalar(node["flavor"], where + ".flavor");
  if (!flavor) return std::unexpected(flavor.error());
  if (flavor->empty()) return std::unexpected(where + ".flavor: required");
  set.flavor = *flavor;
  auto zone = scalar(node["zone"], where + ".zone");
  auto prefix = scalar(node["namePrefix"], where + ".namePrefix");
  auto driver = scalar(node["driverVersion"], where + ".driverVersion");
  auto count = scalar(node["count"], where + ".count");
  for (auto* r : {&zone, &prefix, &driver, &count})
    if (!*r) return std::unexpected(r->error());
  set.zone = *zone;
  set.name_prefix = *prefix;
  set.driver_version = *driver;
  if (!count->empty()) {
    int n = 0;
    auto [end, ec] = std::from_chars(count->data(), count->data() + count->size(), n);
    if (ec != std::errc() || end != count->data() + count->size() || n < 0)
      return std::unexpected(where + ".count: must be a non-negative integer");
    set.count = n;
  }
  auto capacity = string_map(node["capacity"], where + ".capacity");
  if (!capacity) return std::unexpected(capacity.error());
  for (const auto& [name, value] : *capacity) {
    auto q = apimachinery::Quantity::parse(value);
    if (!q) return std::unexpected(where + ".capacity." + name + ": " + q.error());
  }
  set.capacity = *capacity;
  auto labels = string_map(node["labels"], where + ".labels");
  if (!labels) return std::unexpected(labels.error());
  set.labels = *labels;
  return set;
}

Json condition(const char* type, const char* status, const char* reason, const char* message,
               const std::string& now) {
  return {{"type", type},
          {"status", status},
          {"lastHeartbeatTime", now},
          {"lastTransitionTime", now},
          {"reason", reason},
          {"message", message}};
}

// 32 hex digits, stable for a name (machine ID, system UUID, boot ID).
std::string hex_id(const std::string& name) {
  std::string out;
  for (const char* salt : {"/a", "/b", "/c", "/d"}) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", sim::fnv1a32(name + salt));
    out += buf;
  }
  return out;
}

}  // namespace

std::expected<NodeInventory, std::string> parse_node_inventory(std::string_view yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return std::unexpected(std::string("not YAML: ") + e.what());
  }
  NodeInventory inventory;
  if (!root || root.IsNull()) return inventory;
  if (!root.IsMap()) return std::unexpected("the document must be a map with a nodes list");
  for (const auto& item : root) {
    const std::string key = item.first.Scalar();
    if (key != "flavorLabel" && key != "zoneLabel" && key != "nodes")
      return std::unexpected(key + ": unknown field");
  }
  auto flavor_label = scalar(root["flavorLabel"], "flavorLabel");
  auto zone_label = scalar(root["zoneLabel"], "zoneLabel");
  if (!flavor_label) return std::unexpected(flavor_label.error());
  if (!zone_label) return std::unexpected(zone_label.error());
  if (!flavor_label->empty()) inventory.flavor_label = *flavor_label;
  if (!zone_label->empty()) inventory.zone_label = *zone_label;
  const YAML::Node nodes = root["nodes"];
  if (!nodes || nodes.IsNull()) return inventory;
  if (!nodes.IsSequence()) return std::unexpected("nodes: must be a list");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto set = parse_set(nodes[i], "nodes[" + std::to_string(i) + "]");
    if (!set) return std::unexpected(set.error());
    inventory.sets.push_back(std::move(*set));
  }
  return inventory;
}

namespace sim {

std::string node_name(const NodeSetSpec& set, int index) {
  std::string prefix = set.name_prefix;
  if (prefix.empty()) prefix = set.zone.empty() ? set.flavor : set.flavor + "-" + set.zone;
  return prefix + "-" + std::to_string(index);
}

std::string node_address(std::string_view name) {
  const std::uint32_t h = fnv1a32(name);
  return "10." + std::to_string((h >> 16) & 0xff) + "." + std::to_string((h >> 8) & 0xff) + "." +
         std::to_string(1 + (h & 0xff) % 254);
}

Json healthy_conditions(std::chrono::system_clock::time_point now) {
  const std::string t = apimachinery::format_time(now);
  return Json::array(
      {condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                 "kubelet has sufficient memory available", t),
       condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                 "kubelet has no disk pressure", t),
       condition("PIDPressure", "False", "KubeletHasSufficientPID",
                 "kubelet has sufficient PID available", t),
       condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", t)});
}

std::vector<Json> node_objects(const NodeInventory& inventory, const NodeSetSpec& set,
                               std::chrono::system_clock::time_point now) {
  std::vector<Json> out;
  Json resources = Json::object();
  for (const auto& [name, value] : default_capacity())
    resources[name] = value;
  for (const auto& [name, value] : set.capacity)
    resources[name] =
        apimachinery::Quantity::parse(value).value_or(apimachinery::Quantity{}).to_string();
  for (int i = 1; i <= set.count; ++i) {
    const std::string name = node_name(set, i);
    Json labels = Json::object();
    for (const auto& [k, v] : set.labels)
      labels[k] = v;
    labels["kubernetes.io/hostname"] = name;
    labels["kubernetes.io/os"] = "linux";
    labels["kubernetes.io/arch"] = "amd64";
    labels["beta.kubernetes.io/os"] = "linux";
    labels["beta.kubernetes.io/arch"] = "amd64";
    labels[inventory.flavor_label] = set.flavor;
    if (!set.zone.empty()) labels[inventory.zone_label] = set.zone;
    if (!set.driver_version.empty()) labels[sim::kDriverVersion] = set.driver_version;
    const std::string id = hex_id(name);
    Json node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata",
         {{"name", name},
          {"labels", labels},
          {"annotations",
           {{sim::kSimulatedAnnotation, "true"},
            {"node.alpha.kubernetes.io/ttl", "0"},
            {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
        {"spec", Json::object()},
        {"status",
         {{"capacity", resources},
          {"allocatable", resources},
          {"conditions", healthy_conditions(now)},
          {"addresses", Json::array({{{"type", "InternalIP"}, {"address", node_address(name)}},
                                     {{"type", "Hostname"}, {"address", name}}})},
          {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
          {"nodeInfo",
           {{"machineID", id},
            {"systemUUID", id},
            {"bootID", id},
            {"kernelVersion", "6.1.0-28-amd64"},
            {"osImage", "Debian GNU/Linux 12 (bookworm)"},
            {"containerRuntimeVersion", "containerd://1.7.24"},
            {"kubeletVersion", "v1.32.5"},
            {"kubeProxyVersion", "v1.32.5"},
            {"operatingSystem", "linux"},
            {"architecture", "amd64"}}}}}};
    out.push_back(std::move(node));
  }
  return out;
}

}  // namespace sim
}  // namespace respool::sandbox
