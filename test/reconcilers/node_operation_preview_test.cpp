// NodeOperation previews against the sandbox (N18): decided as real operations, beside the
// pool's running ones, and done to nothing: no node, pod or ledger changes.
#include <map>

#include "test/reconcilers/harness.hpp"

using namespace respool;
using namespace respool::test;

namespace {

Json operation(const std::string& name, const std::string& type, const std::string& node,
               bool preview) {
  Json op = {{"apiVersion", "respool.io/v1alpha1"},
             {"kind", "NodeOperation"},
             {"metadata", {{"name", name}}},
             {"spec", {{"pool", "p"}, {"type", type}, {"nodes", {node}}}}};
  if (preview) op["spec"]["preview"] = true;
  if (type == "Reset") op["spec"]["reset"] = {{"os", "ubuntu-22.04"}};
  return op;
}

Json status_of(Harness& h, const std::string& name) {
  return h.get(kube::resources::nodeoperations, name).value("status", Json::object());
}

Json previewed(Harness& h, const std::string& name) {
  REQUIRE(h.eventually([&] { return status_of(h, name).value("phase", "") == "Previewed"; }));
  return status_of(h, name);
}

// name -> resourceVersion of every node.
std::map<std::string, std::string> node_versions(Harness& h) {
  auto list = h.client().list(kube::resources::nodes, "");
  REQUIRE(list);
  const Json items = (*list)["items"];
  std::map<std::string, std::string> out;
  for (const auto& n : items)
    out[n["metadata"]["name"]] = n["metadata"]["resourceVersion"];
  return out;
}

}  // namespace

TEST_CASE(
    "N18: a preview of a Replace names the blocking PodDisruptionBudget, its pod and the "
    "replacement, waits or is refused as a real one would, and changes nothing",
    "[reconcilers][nodeop][preview][rule:N18][rule:N2][rule:N6]") {
  Harness h({.nodes_yaml = "nodes:\n- {flavor: cpu-64c, zone: az-1, count: 5, namePrefix: a-, "
                           "capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n",
             .time_scale = 10});
  h.apply(network_manifest("net-p"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-p", Json::array({{{"flavor", "cpu-64c"}, {"count", 3}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running" && h.pool_nodes("p").size() == 3; },
                       std::chrono::seconds(120)));
  std::vector<std::string> members;
  for (const auto& n : h.pool_nodes("p"))
    members.push_back(n["metadata"]["name"]);
  std::sort(members.begin(), members.end());
  guarded_pod(h, members[0]);
  const auto versions = node_versions(h);
  const Json ledger = h.pool("p")["status"]["nodeOperations"];

  h.apply(operation("look", "Replace", members[0], true), kube::resources::nodeoperations);
  const Json s = previewed(h, "look");
  INFO(s.dump(2));
  CHECK(s.value("reason", "") == "WouldRun");
  const Json n = s["preview"]["nodes"][0];
  CHECK(n["name"] == members[0]);
  CHECK(n["verdict"]["outcome"] == "RunsNow");
  CHECK(n["evictedPods"] == Json::array({"default/guarded"}));
  CHECK(n["stoppedJobs"] == Json::array({"default/guarded"}));
  REQUIRE(n["blockingBudgets"].size() == 1);
  CHECK(n["blockingBudgets"][0]["name"] == "default/keep-g");
  CHECK(n["blockingBudgets"][0]["pod"] == "default/guarded");
  const std::string replacement = n["replacement"].value("node", "");
  CHECK(replacement.starts_with("a-"));
  CHECK(std::find(members.begin(), members.end(), replacement) == members.end());
  CHECK(n["replacement"]["flavor"] == "cpu-64c");
  CHECK(n["steps"].size() == 5);
  CHECK(n["steps"][4]["step"] == "Retired");
  CHECK(s.value("nodes", Json::array()).empty());
  CHECK(h.get(kube::resources::nodeoperations, "look")["metadata"]
            .value("finalizers", Json::array())
            .empty());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CHECK(node_versions(h) == versions);
  CHECK(h.pool("p")["status"]["nodeOperations"] == ledger);

  // A real Replace of the same node is held by the budget: previews beside it wait as a real
  // one would (N2: one replacement at a time in a pool of 3; N6: no reset while one runs).
  h.apply(operation("real", "Replace", members[0], false), kube::resources::nodeoperations);
  REQUIRE(h.eventually([&] { return status_of(h, "real").value("reason", "") == "DrainBlocked"; }));
  const auto versions_held = node_versions(h);
  const Json ledger_held = h.pool("p")["status"]["nodeOperations"];
  h.apply(operation("look-2", "Replace", members[1], true), kube::resources::nodeoperations);
  h.apply(operation("look-3", "Reset", members[2], true), kube::resources::nodeoperations);
  h.apply(operation("look-4", "Replace", replacement, true), kube::resources::nodeoperations);
  CHECK(previewed(h, "look-2")["preview"]["nodes"][0]["verdict"]["reason"] ==
        "ReplaceLimitConcurrent");
  CHECK(previewed(h, "look-3")["preview"]["nodes"][0]["verdict"]["reason"] == "PoolReplacing");
  const Json refused = previewed(h, "look-4")["preview"]["nodes"][0]["verdict"];
  CHECK(refused["outcome"] == "Rejected");
  CHECK(refused["reason"] == "NotInPool");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  // The previews changed nothing the held replacement did not: nodes, pod, ledger.
  CHECK(node_versions(h) == versions_held);
  CHECK(h.pool("p")["status"]["nodeOperations"] == ledger_held);
  CHECK(h.get(kube::resources::pods, "guarded", "default")["status"].value("phase", "") ==
        "Running");
  for (const char* name : {"look", "look-2", "look-3", "look-4"})
    CHECK(status_of(h, name).value("phase", "") == "Previewed");
  REQUIRE(h.client().remove(kube::resources::nodeoperations, "", "real"));
}
