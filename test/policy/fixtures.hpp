#pragma once
// Shared test data: a small catalog, node builders, and a fixed time origin.

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::policy::test {

using namespace std::chrono_literals;

// 2026-01-01T00:00:00Z
inline const TimePoint kT0 = TimePoint{std::chrono::seconds{1'767'225'600}};

inline nlohmann::json catalog_json() {
  return nlohmann::json::parse(R"({
    "flavorLabel": "node.kubernetes.io/instance-type",
    "zoneLabel": "topology.kubernetes.io/zone",
    "flavors": [
      {"name": "gpu-8x-a100", "accelerator": {"type": "GPU", "resource": "nvidia.com/gpu", "count": 8}},
      {"name": "npu-8x-910b", "labelValue": "ascend.910b.8",
       "accelerator": {"type": "NPU", "resource": "huawei.com/Ascend910", "count": 8}},
      {"name": "cpu-64c", "accelerator": {"type": "None"}}
    ],
    "networkPresets": ["192.168.0.0/17", "192.168.128.0/17", "10.100.0.0/16"],
    "plugins": {
      "Training": [{
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "respool-system"},
        "spec": {
          "selector": {"matchLabels": {"app.kubernetes.io/name": "training-agent"}},
          "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "training-agent"}},
            "spec": {"containers": [{"name": "agent", "image": "registry.example/agent:1",
                                     "args": ["--pool={{pool}}", "--type={{ jobType }}"],
                                     "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}]}}}
      }],
      "Inference": [{
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "gateway"},
        "spec": {"replicas": 2,
          "selector": {"matchLabels": {"app": "gw-{{pool}}"}},
          "template": {"metadata": {"labels": {"app": "gw-{{pool}}"}},
            "spec": {"containers": [{"name": "gw", "image": "registry.example/gw:1",
                                     "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}
      }]
    },
    "drivers": {"GPU": {"image": "registry.example/gpu-driver:{version}"},
                "NPU": {"image": "registry.example/npu-driver:{version}"}},
    "reset": {"image": "registry.example/node-reset:1"}
  })");
}

inline Catalog test_catalog() {
  return parse_catalog(catalog_json()).value();
}

// A Node object as the API server would serve it.
struct NodeBuilder {
  nlohmann::json node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", "n"}, {"resourceVersion", "7"}, {"labels", nlohmann::json::object()}}},
      {"spec", nlohmann::json::object()},
      {"status",
       {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}},
        {"allocatable", {{"cpu", "96"}, {"memory", "1Ti"}}}}}};

  NodeBuilder(const std::string& name, const std::string& flavor_label_value) {
    node["metadata"]["name"] = name;
    node["metadata"]["labels"]["node.kubernetes.io/instance-type"] = flavor_label_value;
  }
  NodeBuilder& zone(const std::string& z) {
    node["metadata"]["labels"]["topology.kubernetes.io/zone"] = z;
    return *this;
  }
  NodeBuilder& label(const std::string& k, const std::string& v) {
    node["metadata"]["labels"][k] = v;
    return *this;
  }
  NodeBuilder& taint(const std::string& key, const std::string& value = "",
                     const std::string& effect = "NoSchedule") {
    nlohmann::json t = {{"key", key}, {"effect", effect}};
    if (!value.empty()) t["value"] = value;
    node["spec"]["taints"].push_back(t);
    return *this;
  }
  NodeBuilder& ready(const std::string& status) {
    node["status"]["conditions"][0]["status"] = status;
    return *this;
  }
  NodeBuilder& allocatable(const std::string& resource, const std::string& q) {
    node["status"]["allocatable"][resource] = q;
    return *this;
  }
  NodeBuilder& pool(const std::string& p) {
    label("respool.io/pool", p);
    return taint("respool.io/pool", p);
  }
  NodeView view() const { return node_view_from_json(node); }
};

}  // namespace respool::policy::test
