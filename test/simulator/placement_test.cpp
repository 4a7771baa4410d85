#include <catch2/catch.hpp>

#include <map>

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/node_set.hpp"
#include "sandbox/simulator/placement.hpp"

using namespace respool::sandbox;
using namespace respool::sandbox::sim;
using Json = nlohmann::json;

namespace {

Json make_node(const std::string& name, std::map<std::string, std::string> capacity = {}) {
  NodeInventory inventory;
  NodeSetSpec set;
  set.flavor = "f";
  set.name_prefix = "x";
  set.capacity = std::move(capacity);
  Json node = node_objects(inventory, set, std::chrono::system_clock::now()).at(0);
  node["metadata"]["name"] = name;
  node["metadata"]["labels"]["kubernetes.io/hostname"] = name;
  return node;
}

Json make_pod(Json spec = Json::object()) {
  if (!spec.contains("containers")) spec["containers"] = Json::array({{{"name", "c"}}});
  return {{"metadata", {{"name", "p"}, {"namespace", "default"}}}, {"spec", spec}};
}

Json requesting(std::map<std::string, std::string> requests, Json spec = Json::object()) {
  Json r = Json::object();
  for (auto& [k, v] : requests)
    r[k] = v;
  spec["containers"] = Json::array({{{"name", "c"}, {"resources", {{"requests", r}}}}});
  return make_pod(spec);
}

struct Fixture {
  std::vector<Json> nodes;
  std::map<std::string, NodeUsage> usage;
  Placement place(const Json& pod) {
    std::vector<const Json*> ptrs;
    for (auto& n : nodes)
      ptrs.push_back(&n);
    return place_pod(pod, ptrs, [this](const std::string& name) { return usage[name]; });
  }
};

}  // namespace

TEST_CASE("the least allocated fitting node wins, then the smallest name", "[simulator]") {
  Fixture f;
  f.nodes = {make_node("b"), make_node("a"), make_node("c")};
  CHECK(f.place(make_pod()).node == "a");
  f.usage["a"].requested.set("cpu", respool::apimachinery::Quantity::from_units(16));
  CHECK(f.place(make_pod()).node == "b");
}

TEST_CASE("nodeSelector and affinity narrow the choice", "[simulator]") {
  Fixture f;
  f.nodes = {make_node("a"), make_node("b")};
  f.nodes[1]["metadata"]["labels"]["zone"] = "az-2";
  CHECK(f.place(make_pod({{"nodeSelector", {{"zone", "az-2"}}}})).node == "b");
  auto none = f.place(make_pod({{"nodeSelector", {{"zone", "az-9"}}}}));
  CHECK(none.node.empty());
  CHECK(none.message ==
        "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");
}

TEST_CASE("NoSchedule and NoExecute taints must be tolerated", "[simulator]") {
  Fixture f;
  f.nodes = {make_node("a"), make_node("b"), make_node("c")};
  f.nodes[0]["spec"]["taints"] =
      Json::array({{{"key", "respool.io/pool"}, {"value", "gpu-a"}, {"effect", "NoSchedule"}}});
  f.nodes[1]["spec"]["taints"] =
      Json::array({{{"key", "isolation.respool.io/A050101"}, {"effect", "NoExecute"}}});
  f.nodes[2]["spec"]["taints"] = Json::array({{{"key", "soft"}, {"effect", "PreferNoSchedule"}}});
  CHECK(f.place(make_pod()).node == "c");
  f.nodes[2]["spec"]["taints"][0]["effect"] = "NoSchedule";
  auto none = f.place(make_pod());
  CHECK(
      none.message ==
      "0/3 nodes are available: 1 node(s) had untolerated taint {isolation.respool.io/A050101: }, "
      "1 node(s) had untolerated taint {respool.io/pool: gpu-a}, 1 node(s) had untolerated "
      "taint {soft: }.");
  Json tolerations = Json::array({{{"key", "respool.io/pool"},
                                   {"operator", "Equal"},
                                   {"value", "gpu-a"},
                                   {"effect", "NoSchedule"}}});
  CHECK(f.place(make_pod({{"tolerations", tolerations}})).node == "a");
  CHECK(f.place(make_pod({{"tolerations", {{{"operator", "Exists"}}}}})).node == "a");
}

TEST_CASE("a node that is not Ready counts as tainted", "[simulator]") {
  Fixture f;
  f.nodes = {make_node("a")};
  f.nodes[0]["status"]["conditions"][3]["status"] = "False";
  CHECK(
      f.place(make_pod()).message ==
      "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.");
  f.nodes[0]["status"]["conditions"][3]["status"] = "Unknown";
  CHECK(f.place(make_pod()).message ==
        "0/1 nodes are available: 1 node(s) had untolerated taint "
        "{node.kubernetes.io/unreachable: }.");
  Json tolerate =
      Json::array({{{"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}}});
  CHECK(f.place(make_pod({{"tolerations", tolerate}})).node == "a");
}

TEST_CASE("spec.unschedulable is tolerated only by the unschedulable toleration", "[simulator]") {
  Fixture f;
  f.nodes = {make_node("a")};
  f.nodes[0]["spec"]["unschedulable"] = true;
  CHECK(f.place(make_pod()).message == "0/1 nodes are available: 1 node(s) were unschedulable.");
  Json tolerate = Json::array({{{"key", "node.kubernetes.io/unschedulable"},
                                {"operator", "Exists"},
                                {"effect", "NoSchedule"}}});
  CHECK(f.place(make_pod({{"tolerations", tolerate}})).node == "a");
}

TEST_CASE("requests must fit what is left of allocatable, pods included", "[simulator]") {
  Fixture f;
  f.nodes = {make_node("a", {{"nvidia.com/gpu", "8"}, {"pods", "3"}}),
             make_node("b", {{"nvidia.com/gpu", "8"}}), make_node("c"), make_node("d"),
             make_node("e")};
  f.nodes[2]["spec"]["taints"] = Json::array({{{"key", "t"}, {"effect", "NoSchedule"}}});
  f.nodes[3]["spec"]["taints"] = Json::array({{{"key", "t"}, {"effect", "NoSchedule"}}});
  f.nodes[4]["spec"]["taints"] = Json::array({{{"key", "t"}, {"effect", "NoSchedule"}}});
  f.usage["a"].requested.set("nvidia.com/gpu", respool::apimachinery::Quantity::from_units(4));
  f.usage["b"].requested.set("nvidia.com/gpu", respool::apimachinery::Quantity::from_units(8));
  CHECK(f.place(requesting({{"nvidia.com/gpu", "4"}})).node == "a");
  auto none = f.place(requesting({{"nvidia.com/gpu", "5"}}));
  CHECK(none.message ==
        "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) had untolerated taint "
        "{t: }.");
  f.usage["a"].pods = 3;
  CHECK(f.place(requesting({{"nvidia.com/gpu", "0"}})).node == "b");
  f.usage["b"].pods = 110;
  auto full = f.place(requesting({{"cpu", "100"}}));
  CHECK(full.message ==
        "0/5 nodes are available: 2 Insufficient cpu, 2 Too many pods, 3 node(s) had untolerated "
        "taint {t: }.");
  // No node at all.
  Fixture empty;
  CHECK(empty.place(make_pod()).message == "no nodes available to schedule pods");
}

TEST_CASE("filter_node reports every resource that does not fit", "[simulator]") {
  Json node = make_node("a", {{"cpu", "2"}, {"memory", "1Gi"}});
  auto pod = requesting({{"cpu", "3"}, {"memory", "2Gi"}, {"example.com/fpga", "1"}});
  auto reasons = filter_node(pod["spec"], pod_requests(pod["spec"]), node, NodeUsage{});
  std::sort(reasons.begin(), reasons.end());
  CHECK(reasons == std::vector<std::string>{"Insufficient cpu", "Insufficient example.com/fpga",
                                            "Insufficient memory"});
}
