// Resizing (P10): only a Running pool, scale-out claims, scale-in drains nodes without jobs
// first, honours PodDisruptionBudgets, and releases nodes whole; job types (P2, P12).
#include <set>

#include "test/reconcilers/harness.hpp"

using namespace respool;
using namespace respool::test;

namespace {

const char* kCpuNodes = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 5, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)";

Json job_pod(const std::string& name, const std::string& pool) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "train"}}}}},
          {"spec",
           {{"nodeSelector", {{"respool.io/pool", pool}}},
            {"tolerations", Json::array({{{"key", "respool.io/pool"}, {"operator", "Exists"}}})},
            {"terminationGracePeriodSeconds", 1},
            {"containers",
             Json::array({{{"name", "c"},
                           {"image", "train:1"},
                           {"resources", {{"requests", {{"cpu", "40"}}}}}}})}}}};  // one per node
}

bool released_cleanly(const Json& node) {
  // Named copies: iterating items() of a temporary would outlive the temporary.
  const Json labels = node["metadata"].value("labels", Json::object());
  const Json annotations = node["metadata"].value("annotations", Json::object());
  const Json taints = node.value("spec", Json::object()).value("taints", Json::array());
  for (const auto& [key, value] : labels.items()) {
    if (key.rfind("respool.io/", 0) == 0) return false;
  }
  for (const auto& [key, value] : annotations.items()) {
    if (key.rfind("respool.io/", 0) == 0) return false;
  }
  for (const auto& t : taints) {
    const std::string key = t.value("key", "");
    if (key.rfind("respool.io/", 0) == 0 || key.rfind("isolation.respool.io/", 0) == 0)
      return false;
  }
  return true;
}

std::string condition_reason(const Json& pool, const std::string& type) {
  for (const auto& c : pool.value("status", Json::object()).value("conditions", Json::array())) {
    if (c["type"] == type) return c.value("reason", "");
  }
  return "";
}

}  // namespace

TEST_CASE("scale-out and scale-in; nodes without jobs go first; PDBs hold evictions",
          "[reconcilers][rule:P10][rule:P9][rule:A1]") {
  Harness h({.nodes_yaml = kCpuNodes});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 2}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));

  // Scale out to 3.
  h.patch_pool("p", {{"resources", Json::array({{{"flavor", "cpu-64c"}, {"count", 3}}})}});
  REQUIRE(h.eventually([&] { return h.pool_nodes("p").size() == 3 && h.phase("p") == "Running"; }));

  // Two jobs: the scheduler puts them on pool nodes.
  h.apply(job_pod("job-1", "p"), kube::resources::pods);
  h.apply(job_pod("job-2", "p"), kube::resources::pods);
  REQUIRE(h.eventually([&] {
    for (const char* name : {"job-1", "job-2"}) {
      auto pod = h.get(kube::resources::pods, name, "default");
      if (pod.value("status", Json::object()).value("phase", "") != "Running") return false;
    }
    return true;
  }));
  std::set<std::string> busy;
  for (const char* name : {"job-1", "job-2"}) {
    busy.insert(
        h.get(kube::resources::pods, name, "default")["spec"]["nodeName"].get<std::string>());
  }
  // A budget that allows no disruption of the jobs.
  h.apply({{"apiVersion", "policy/v1"},
           {"kind", "PodDisruptionBudget"},
           {"metadata", {{"name", "train"}, {"namespace", "default"}}},
           {"spec", {{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "train"}}}}}}}},
          kube::resources::poddisruptionbudgets);

  // Scale in to 1: a node without jobs goes first, then one with jobs, which the budget holds.
  std::set<std::string> before;
  for (const auto& n : h.pool_nodes("p"))
    before.insert(n["metadata"]["name"]);
  h.patch_pool("p", {{"resources", Json::array({{{"flavor", "cpu-64c"}, {"count", 1}}})}});
  const bool blocked = h.eventually(
      [&] { return condition_reason(h.pool("p"), "Progressing") == "ScaleInBlocked"; });
  INFO(h.pool("p").value("status", Json::object()).dump());
  REQUIRE(blocked);
  std::set<std::string> after;
  for (const auto& n : h.pool_nodes("p"))
    after.insert(n["metadata"]["name"]);
  for (const auto& name : before) {
    if (!busy.contains(name)) CHECK_FALSE(after.contains(name));  // the idle node went first
  }
  // Lift the budget: the drain finishes.
  REQUIRE(h.client().remove(kube::resources::poddisruptionbudgets, "default", "train"));
  REQUIRE(h.eventually([&] { return h.pool_nodes("p").size() == 1 && h.phase("p") == "Running"; },
                       90s));

  // Released nodes carry nothing of respool any more and are free again.
  for (const auto& n : h.nodes()) {
    if (label(n, "respool.io/pool").empty()) CHECK(released_cleanly(n));
  }
  auto records = h.pool("p")["status"]["records"];
  bool resize_done = false;
  for (const auto& r : records) {
    if (r["operation"] == "Resize" && r["phase"] == "Succeeded") resize_done = true;
  }
  CHECK(resize_done);
  CHECK(h.eventually([&] {
    int removed = 0;
    for (const auto& line : h.audit_lines())
      removed += line.value("operation", "") == "deleteClusterNode";
    return removed >= 2;
  }));
}

TEST_CASE("no flavor goes to zero and flavors are not added by a resize",
          "[reconcilers][rule:P10][rule:P4]") {
  Harness h({.nodes_yaml = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 2, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
- {flavor: gpu-4x-l40s, zone: az-1, count: 1, namePrefix: l40s-, capacity: {cpu: "32", memory: 256Gi, pods: "110", nvidia.com/gpu: "4"}}
)"});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 1}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));
  h.patch_pool("p", {{"resources", Json::array({{{"flavor", "gpu-4x-l40s"}, {"count", 1}}})}});
  REQUIRE(h.eventually([&] { return condition_reason(h.pool("p"), "Ready") == "InvalidSpec"; }));
  CHECK(h.pool_nodes("p").size() == 1);
  CHECK(label(h.pool_nodes("p")[0], "node.kubernetes.io/instance-type") == "cpu-64c");
}

TEST_CASE("job types install and remove their plug-ins and node labels",
          "[reconcilers][rule:P12][rule:P2]") {
  Harness h({.nodes_yaml = kCpuNodes});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 2}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));
  auto plugin_exists = [&](const std::string& name) {
    return h.client().get(kube::resources::daemonsets, "respool-system", name).has_value();
  };
  REQUIRE(h.eventually([&] { return plugin_exists("p-training-agent"); }));
  // The plug-in's pods run on the pool's nodes (the simulator's DaemonSet controller).
  REQUIRE(h.eventually([&] {
    auto ds = h.get(kube::resources::daemonsets, "p-training-agent", "respool-system");
    return ds.value("status", Json::object()).value("numberReady", 0) == 2;
  }));
  REQUIRE(h.eventually([&] {
    for (const auto& p : h.pool("p")["status"].value("plugins", Json::array())) {
      if (p["name"] == "p-training-agent" && p["ready"] == true)
        return p["requests"]["cpu"] == "500m";
    }
    return false;
  }));

  h.patch_pool("p", {{"jobTypes", Json::array({"DevEnviron"})}});
  REQUIRE(h.eventually([&] { return !plugin_exists("p-training-agent"); }));
  for (const auto& n : h.pool_nodes("p")) {
    CHECK(label(n, "respool.io/job-type.training").empty());
    CHECK(label(n, "respool.io/job-type.devenviron") == "true");
  }
  // P9: the change is one SetJobTypes record, ended once every node carries the new job types.
  Json record;
  REQUIRE(h.eventually([&] {
    for (const auto& r : h.pool("p")["status"].value("records", Json::array()))
      if (r["operation"] == "SetJobTypes" && r["phase"] == "Succeeded") record = r;
    return !record.is_null();
  }));
  CHECK(record["message"] == "job types set to DevEnviron on 2 nodes");
  CHECK(record["nodes"].size() == 2);
  // A tags change is a SetTags record; the status shows the tags it has seen.
  h.patch_pool("p", {{"tags", {{"team", "vision"}}}});
  REQUIRE(h.eventually([&] {
    for (const auto& r : h.pool("p")["status"].value("records", Json::array()))
      if (r["operation"] == "SetTags" && r["message"] == "tags set to team=vision") return true;
    return false;
  }));
  CHECK(h.pool("p")["status"]["tags"] == Json{{"team", "vision"}});
}
