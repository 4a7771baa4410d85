// The simulator against an in-process API server, over HTTP: nodes, kubelets, the scheduler.

#include "test/simulator/sandbox_fixture.hpp"

#include <set>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/keys.hpp"

using namespace respool;
using namespace respool::sandbox::test;
using respool::sandbox::sim::annotation;
using respool::sandbox::sim::condition_status;
using respool::sandbox::sim::label;
using respool::sandbox::sim::string_at;

namespace {

const char* kTwoFlavors = R"(
nodes:
- flavor: gpu-8x-a100
  zone: az-1
  count: 2
  namePrefix: gpu
  capacity: {cpu: "96", memory: 1Ti, nvidia.com/gpu: "8"}
  driverVersion: "535.104.05"
- flavor: cpu-32
  zone: az-2
  count: 1
  namePrefix: cpu
)";

}  // namespace

TEST_CASE("free nodes appear Ready with their labels and capacity", "[simulator]") {
  Cluster cluster(kTwoFlavors);
  Json gpu = cluster.node("gpu-2");
  REQUIRE(gpu.is_object());
  CHECK(label(gpu, "node.kubernetes.io/instance-type") == "gpu-8x-a100");
  CHECK(label(gpu, "topology.kubernetes.io/zone") == "az-1");
  CHECK(label(gpu, "kubernetes.io/hostname") == "gpu-2");
  CHECK(label(gpu, "kubernetes.io/os") == "linux");
  CHECK(label(gpu, "respool.io/driver-version") == "535.104.05");
  CHECK(gpu["status"]["capacity"]["nvidia.com/gpu"] == "8");
  CHECK(gpu["status"]["allocatable"] == gpu["status"]["capacity"]);
  CHECK(condition_status(gpu, "Ready") == kube::ConditionStatus::True);
  CHECK(string_at(gpu, {"status", "nodeInfo", "kubeletVersion"}).starts_with("v1.32"));
  Json cpu = cluster.node("cpu-1");
  CHECK(label(cpu, "topology.kubernetes.io/zone") == "az-2");
  CHECK_FALSE(label(cpu, "respool.io/driver-version"));
  CHECK(cluster.items(kube::resources::nodes).size() == 3);
  // Ready nodes carry no lifecycle taints, whatever the API server added at registration.
  CHECK(eventually([&] { return sandbox::sim::node_taints(cluster.node("gpu-1")).empty(); }));

  // Registering the same inventory again leaves the nodes alone.
  const std::string rv = string_at(cluster.node("gpu-1"), {"metadata", "resourceVersion"});
  auto again = cluster.simulator().load_nodes_yaml(kTwoFlavors);
  REQUIRE(again);
  CHECK(again->size() == 3);
  CHECK(string_at(cluster.node("gpu-1"), {"metadata", "resourceVersion"}) == rv);
}

TEST_CASE("pods run and finish after their simulated duration", "[simulator]") {
  Cluster cluster(kTwoFlavors);
  cluster.create(kube::resources::pods, "default",
                 simple_pod("short", {}, {{sandbox::sim::kRunSecondsAnnotation, "120"}}));
  cluster.create(kube::resources::pods, "default", simple_pod("forever"));
  cluster.create(kube::resources::pods, "default",
                 simple_pod("crash", {{"restartPolicy", "Never"}},
                            {{sandbox::sim::kRunSecondsAnnotation, "30"},
                             {sandbox::sim::kExitCodeAnnotation, "3"}}));
  REQUIRE(eventually([&] { return phase(cluster.pod("forever")) == "Running"; }));
  Json running = cluster.pod("forever");
  CHECK(condition_status(running, "Ready") == kube::ConditionStatus::True);
  CHECK(condition_status(running, "PodScheduled") == kube::ConditionStatus::True);
  CHECK(running["status"]["containerStatuses"][0]["state"].contains("running"));
  CHECK_FALSE(string_at(running, {"status", "podIP"}).empty());
  CHECK_FALSE(string_at(running, {"status", "hostIP"}).empty());

  REQUIRE(eventually([&] { return phase(cluster.pod("short")) == "Succeeded"; }));
  Json done = cluster.pod("short");
  const Json& terminated = done["status"]["containerStatuses"][0]["state"]["terminated"];
  CHECK(terminated["exitCode"] == 0);
  auto started = apimachinery::parse_time(string_at(done, {"status", "startTime"}));
  auto finished = apimachinery::parse_time(terminated.value("finishedAt", ""));
  REQUIRE(started);
  REQUIRE(finished);
  CHECK(*finished - *started >= std::chrono::seconds(120));  // simulated seconds

  REQUIRE(eventually([&] { return phase(cluster.pod("crash")) == "Failed"; }));
  CHECK(cluster.pod("crash")["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] ==
        3);
  CHECK(phase(cluster.pod("forever")) == "Running");
}

TEST_CASE("deleted pods stop and go; pods of a deleted node are collected", "[simulator]") {
  Cluster cluster(kTwoFlavors);
  cluster.create(kube::resources::pods, "default", simple_pod("victim", {{"nodeName", "gpu-1"}}));
  cluster.create(kube::resources::pods, "default", simple_pod("orphan", {{"nodeName", "cpu-1"}}));
  REQUIRE(eventually([&] { return phase(cluster.pod("victim")) == "Running"; }));
  REQUIRE(eventually([&] { return phase(cluster.pod("orphan")) == "Running"; }));
  auto removed = cluster.client().remove(kube::resources::pods, "default", "victim");
  REQUIRE(removed);
  CHECK(eventually([&] { return cluster.pod("victim").is_null(); }));
  REQUIRE(cluster.client().remove(kube::resources::nodes, "", "cpu-1"));
  CHECK(eventually([&] { return cluster.pod("orphan").is_null(); }));
}

TEST_CASE("the scheduler honours selectors, taints, cordons and capacity", "[simulator]") {
  Cluster cluster(kTwoFlavors);
  // An extended resource is never overcommitted: its limit is required, equal to the request.
  Json gpu_request = {
      {"resources",
       {{"requests", {{"nvidia.com/gpu", "6"}}}, {"limits", {{"nvidia.com/gpu", "6"}}}}}};
  auto gpu_pod = [&](const std::string& name, Json spec = Json::object()) {
    Json pod = simple_pod(name, spec);
    pod["spec"]["containers"][0]["resources"] = gpu_request["resources"];
    return pod;
  };
  // nodeSelector.
  cluster.create(
      kube::resources::pods, "default",
      simple_pod("zoned", {{"nodeSelector", {{"topology.kubernetes.io/zone", "az-2"}}}}));
  REQUIRE(eventually([&] {
    return string_at(cluster.pod("zoned"), {"spec", "nodeName"}) == "cpu-1";
  }));

  // Capacity: two nodes with 8 GPUs take one 6-GPU pod each; the third waits.
  const std::vector<std::string> gpu_pods = {"g1", "g2", "g3"};
  for (const auto& name : gpu_pods)
    cluster.create(kube::resources::pods, "default", gpu_pod(name));
  auto unschedulable = [&](const std::string& name) {
    const Json pod = cluster.pod(name);
    const Json* c = sandbox::sim::find_condition(pod, "PodScheduled");
    return c && c->value("reason", "") == "Unschedulable";
  };
  std::string waiting;
  REQUIRE(eventually([&] {
    int bound = 0;
    for (const auto& name : gpu_pods) {
      if (!string_at(cluster.pod(name), {"spec", "nodeName"}).empty()) ++bound;
      if (unschedulable(name)) waiting = name;
    }
    return bound == 2 && !waiting.empty();
  }));
  std::set<std::string> used;
  for (const auto& name : gpu_pods)
    if (name != waiting) used.insert(string_at(cluster.pod(name), {"spec", "nodeName"}));
  CHECK(used == std::set<std::string>{"gpu-1", "gpu-2"});
  CHECK(sandbox::sim::find_condition(cluster.pod(waiting), "PodScheduled")->value("message", "") ==
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");

  // A node with room arrives: the waiting pod is placed there.
  sandbox::NodeSetSpec more;
  more.flavor = "gpu-8x-a100";
  more.name_prefix = "extra";
  more.capacity = {{"nvidia.com/gpu", "8"}};
  REQUIRE(cluster.simulator().add_nodes(more));
  CHECK(eventually([&] {
    return string_at(cluster.pod(waiting), {"spec", "nodeName"}) == "extra-1";
  }));

  // Taints: the pods wait for a node labelled "team=a"; cpu-1 gets that label together with a
  // dedicated taint (one update, so the scheduler sees both at once).
  Json tolerate = Json::array({{{"key", "respool.io/pool"},
                                {"operator", "Equal"},
                                {"value", "a"},
                                {"effect", "NoSchedule"}}});
  Json team = {{"team", "a"}};
  cluster.create(kube::resources::pods, "default",
                 simple_pod("intruder", {{"nodeSelector", team}}));
  cluster.create(kube::resources::pods, "default",
                 simple_pod("member", {{"nodeSelector", team}, {"tolerations", tolerate}}));
  REQUIRE(eventually([&] { return unschedulable("intruder") && unschedulable("member"); }));
  cluster.patch_node("cpu-1", {{"metadata", {{"labels", team}}},
                               {"spec",
                                {{"taints", Json::array({{{"key", "respool.io/pool"},
                                                          {"value", "a"},
                                                          {"effect", "NoSchedule"}}})}}}});
  REQUIRE(eventually([&] {
    return string_at(cluster.pod("member"), {"spec", "nodeName"}) == "cpu-1";
  }));
  CHECK(eventually([&] {
    return sandbox::sim::find_condition(cluster.pod("intruder"), "PodScheduled")
               ->value("message", "") ==
           "0/4 nodes are available: 1 node(s) had untolerated taint {respool.io/pool: a}, 3 "
           "node(s) didn't match Pod's node affinity/selector.";
  }));
  CHECK(string_at(cluster.pod("intruder"), {"spec", "nodeName"}).empty());

  // Cordons: a pod for nodes labelled "rack=r1" waits while every such node is cordoned, then
  // runs on the one uncordoned.
  cluster.create(kube::resources::pods, "default",
                 simple_pod("patient", {{"nodeSelector", {{"rack", "r1"}}}}));
  REQUIRE(eventually([&] { return unschedulable("patient"); }));
  for (const char* n : {"gpu-1", "gpu-2", "cpu-1", "extra-1"})
    cluster.patch_node(
        n, {{"metadata", {{"labels", {{"rack", "r1"}}}}}, {"spec", {{"unschedulable", true}}}});
  CHECK(eventually([&] {
    return sandbox::sim::find_condition(cluster.pod("patient"), "PodScheduled")
               ->value("message", "") == "0/4 nodes are available: 4 node(s) were unschedulable.";
  }));
  cluster.patch_node("gpu-2", {{"spec", {{"unschedulable", false}}}});
  CHECK(eventually([&] {
    return string_at(cluster.pod("patient"), {"spec", "nodeName"}) == "gpu-2";
  }));
  // The node lifecycle controller mirrors cordons as taints.
  CHECK(eventually([&] {
    return has_taint(cluster.node("gpu-1"), sandbox::sim::kTaintUnschedulable, "NoSchedule");
  }));
}
