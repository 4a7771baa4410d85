// NodeOperations against the sandbox: replace, reset and delete within N1–N8, limits checked
// by watching the nodes, not by reading the operator's status.
#include <set>

#include "test/reconcilers/harness.hpp"
#include "test/reconcilers/node_watch.hpp"

using namespace respool;
using namespace respool::test;

namespace {

std::string cpu_nodes(int az1, int az2 = 0) {
  std::string y = "nodes:\n- {flavor: cpu-64c, zone: az-1, count: " + std::to_string(az1) +
                  ", namePrefix: a-, capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n";
  if (az2 > 0) {
    y += "- {flavor: cpu-64c, zone: az-2, count: " + std::to_string(az2) +
         ", namePrefix: b-, capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n";
  }
  return y;
}

Json node_operation(const std::string& name, const std::string& pool, const std::string& type,
                    const std::vector<std::string>& nodes, const Json& extra = Json::object()) {
  Json op = {{"apiVersion", "respool.io/v1alpha1"},
             {"kind", "NodeOperation"},
             {"metadata", {{"name", name}}},
             {"spec", {{"pool", pool}, {"type", type}, {"nodes", nodes}}}};
  op["spec"].update(extra);
  return op;
}

// A Running pool of `count` cpu-64c nodes.
void running_pool(Harness& h, const std::string& name, int count) {
  h.apply(network_manifest("net-" + name), kube::resources::networks);
  h.apply(
      pool_manifest(name, "net-" + name, Json::array({{{"flavor", "cpu-64c"}, {"count", count}}})),
      kube::resources::resourcepools);
  REQUIRE(h.eventually(
      [&] { return h.phase(name) == "Running" && h.pool_nodes(name).size() == std::size_t(count); },
      std::chrono::seconds(120)));
}

Json op_status(Harness& h, const std::string& name) {
  return h.get(kube::resources::nodeoperations, name).value("status", Json::object());
}

std::string op_phase(Harness& h, const std::string& name) {
  return op_status(h, name).value("phase", "");
}

std::vector<std::string> names(const std::vector<Json>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes)
    out.push_back(n["metadata"]["name"]);
  std::sort(out.begin(), out.end());
  return out;
}

void add_free_nodes(Harness& h, int count, const std::string& prefix) {
  sandbox::NodeSetSpec set;
  set.flavor = "cpu-64c";
  set.zone = "az-1";
  set.count = count;
  set.name_prefix = prefix;
  set.capacity = {{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}};
  REQUIRE(h.simulator().add_nodes(set));
}

Json pool_node_ops(Harness& h, const std::string& pool) {
  return h.pool(pool).value("status", Json::object()).value("nodeOperations", Json::object());
}

bool cordoned_by_respool_without_record(const Json& node) {
  const Json annotations = node["metadata"].value("annotations", Json::object());
  const bool cordoned = node.value("spec", Json::object()).value("unschedulable", false);
  if (!cordoned) return false;
  return !annotations.contains("respool.io/cordoned-by") &&
         !annotations.contains("respool.io/cordon-reason") &&
         !annotations.contains("respool.io/retired");
}

}  // namespace

TEST_CASE("N2: three replacements asked at once in a 40-node pool run two, queue the third",
          "[reconcilers][nodeop][rule:N2][rule:N3][rule:A1]") {
  Harness h({.nodes_yaml = cpu_nodes(40)});
  running_pool(h, "p", 40);
  NodeWatch watch(h.client(), "p");
  auto members = names(h.pool_nodes("p"));
  // No idle node yet: the replacements hold at their claim, in flight.
  for (int i = 0; i < 3; ++i) {
    h.apply(node_operation("r" + std::to_string(i), "p", "Replace", {members[i]}),
            kube::resources::nodeoperations);
  }
  REQUIRE(h.eventually([&] {
    return op_status(h, "r2").value("reason", "") == "ReplaceLimitConcurrent" &&
           op_phase(h, "r0") == "Running" && op_phase(h, "r1") == "Running";
  }));
  Json budget = pool_node_ops(h, "p");
  CHECK(budget.value("replacing", -1) == 2);
  CHECK(budget.value("concurrentReplacementLimit", -1) == 2);
  CHECK(budget.value("replacementLimit", -1) == 8);
  CHECK(budget.value("replacementsInWindow", -1) == 2);
  // Cordoned and drained while they wait for an idle node.
  REQUIRE(h.eventually([&] {
    auto node = h.get(kube::resources::nodes, members[0]);
    return node["spec"].value("unschedulable", false);
  }));

  add_free_nodes(h, 3, "spare-");
  REQUIRE(h.eventually(
      [&] {
        return op_phase(h, "r0") == "Succeeded" && op_phase(h, "r1") == "Succeeded" &&
               op_phase(h, "r2") == "Succeeded";
      },
      std::chrono::seconds(90)));
  INFO(watch.log());
  CHECK(watch.most("Replace") == 2);

  // Each old node is retired and out of the pool; the pool has 40 nodes again, spares among them.
  for (int i = 0; i < 3; ++i) {
    auto old = h.get(kube::resources::nodes, members[i]);
    CHECK(label(old, "respool.io/retired") == "true");
    CHECK(label(old, "respool.io/pool").empty());
    CHECK(has_taint(old, "respool.io/retired"));
    auto s = op_status(h, "r" + std::to_string(i));
    const Json node = s["nodes"][0];
    CHECK(node.value("replacement", "").rfind("spare-", 0) == 0);
    std::vector<std::string> steps;
    for (const auto& step : node["steps"])
      steps.push_back(step["step"]);
    CHECK(steps == std::vector<std::string>{"Cordoned", "Drained", "ReplacementClaimed",
                                            "ReplacementAdmitted", "Retired", "Succeeded"});
  }
  // The pool's status counts the ended replacements a moment after the operations end: wait for
  // it (read once right away, it raced under load).
  REQUIRE(h.eventually([&] {
    return h.pool_nodes("p").size() == 40 && h.phase("p") == "Running" &&
           pool_node_ops(h, "p").value("replacing", -1) == 0;
  }));
  // A retired node never returns to the free inventory: with two more spares the pool stays.
  // Audit: each replacement joined (addClusterNode) and each old node left (deleteClusterNode),
  // once each (a second line only when a restart could not know the first was written).
  std::set<std::string> joined, left;
  std::string lines;
  REQUIRE(h.eventually([&] {
    joined.clear();
    left.clear();
    lines.clear();
    for (const auto& line : h.audit_lines()) {
      const std::string message = line.value("message", "");
      const std::string node = line.value("node", "");
      lines += line.dump() + "\n";
      if (line.value("operation", "") == "addClusterNode" &&
          message.find("replacement for") != std::string::npos)
        joined.insert(node);
      if (line.value("operation", "") == "deleteClusterNode" &&
          message.find("retired") != std::string::npos)
        left.insert(node);
    }
    return joined.size() == 3 && left.size() == 3;
  }));
  INFO(lines);
  CHECK(left == std::set<std::string>{members[0], members[1], members[2]});
  CHECK(lines.find("audited on recovery") == std::string::npos);
  CHECK(h.has_event("r0", "Succeeded",
                    "Replace Succeeded: replaced " + members[0] + " by " +
                        op_status(h, "r0")["nodes"][0].value("replacement", "")));
}

TEST_CASE("N1: the ninth replacement in 24 hours waits until the window moves, naming the time",
          "[reconcilers][nodeop][rule:N1]") {
  Harness h({.nodes_yaml = cpu_nodes(49)});
  running_pool(h, "p", 40);
  auto members = names(h.pool_nodes("p"));
  for (int i = 0; i < 8; ++i) {
    h.apply(node_operation("r" + std::to_string(i), "p", "Replace", {members[i]}),
            kube::resources::nodeoperations);
  }
  REQUIRE(h.eventually(
      [&] {
        for (int i = 0; i < 8; ++i) {
          if (op_phase(h, "r" + std::to_string(i)) != "Succeeded") return false;
        }
        return true;
      },
      std::chrono::seconds(120)));
  // Old records deleted: the window's history is the pool's, not theirs.
  for (int i = 0; i < 8; ++i)
    REQUIRE(h.client().remove(kube::resources::nodeoperations, "", "r" + std::to_string(i)));
  h.apply(node_operation("r8", "p", "Replace", {members[8]}), kube::resources::nodeoperations);
  REQUIRE(
      h.eventually([&] { return op_status(h, "r8").value("reason", "") == "ReplaceLimitPerDay"; }));
  const std::string next = pool_node_ops(h, "p").value("nextReplacementTime", "");
  CHECK_FALSE(next.empty());
  CHECK(op_status(h, "r8").value("message", "").find(next) != std::string::npos);
  CHECK(pool_node_ops(h, "p").value("replacementsInWindow", -1) == 8);
  CHECK(op_phase(h, "r8") == "Pending");

  // A simulated day later the window has moved: it runs.
  h.clock().jump(std::chrono::hours(24));
  REQUIRE(h.eventually([&] { return op_phase(h, "r8") == "Succeeded"; }, std::chrono::seconds(90)));
  CHECK(pool_node_ops(h, "p").value("replacementsInWindow", -1) == 1);
}

TEST_CASE("N4/N6: resets and replacements exclude each other both ways",
          "[reconcilers][nodeop][rule:N4][rule:N6]") {
  Harness h({.nodes_yaml = cpu_nodes(10), .time_scale = 20});  // a reset takes a simulated minute
  running_pool(h, "p", 8);
  auto members = names(h.pool_nodes("p"));
  // A reset is under way (its Job runs a simulated minute): a replacement waits.
  h.apply(
      node_operation("reset", "p", "Reset", {members[0]}, {{"reset", {{"os", "ubuntu-22.04"}}}}),
      kube::resources::nodeoperations);
  REQUIRE(h.eventually([&] { return op_phase(h, "reset") == "Running"; }));
  h.apply(node_operation("replace", "p", "Replace", {members[1]}), kube::resources::nodeoperations);
  REQUIRE(
      h.eventually([&] { return op_status(h, "replace").value("reason", "") == "PoolResetting"; }));
  CHECK(op_phase(h, "replace") == "Pending");
  // Once the reset ends, the replacement runs; while it runs, a new reset waits.
  REQUIRE(
      h.eventually([&] { return op_phase(h, "reset") == "Succeeded"; }, std::chrono::seconds(120)));
  REQUIRE(h.eventually([&] { return op_phase(h, "replace") != "Pending"; }));
  h.apply(node_operation("reset-2", "p", "Reset", {members[2]}, {{"reset", {{"os", "x"}}}}),
          kube::resources::nodeoperations);
  REQUIRE(h.eventually([&] {
    return op_status(h, "reset-2").value("reason", "") == "PoolReplacing" ||
           op_phase(h, "replace") == "Succeeded";
  }));
  REQUIRE(h.eventually([&] { return op_phase(h, "replace") == "Succeeded"; },
                       std::chrono::seconds(90)));
  REQUIRE(h.eventually([&] { return op_phase(h, "reset-2") == "Succeeded"; },
                       std::chrono::seconds(120)));
  // The reset node is Available and uncordoned again, the reset Job gone.
  auto reset_node = h.get(kube::resources::nodes, members[0]);
  CHECK_FALSE(reset_node["spec"].value("unschedulable", false));
  CHECK_FALSE(has_taint(reset_node, "respool.io/resetting"));
  CHECK_FALSE(has_taint(reset_node, "isolation.respool.io/A200008"));
  CHECK(label(reset_node, "respool.io/pool") == "p");
  auto steps = op_status(h, "reset")["nodes"][0]["steps"];
  std::vector<std::string> names_of;
  for (const auto& s : steps)
    names_of.push_back(s["step"]);
  CHECK(names_of == std::vector<std::string>{"Cordoned", "Drained", "ResetStarted",
                                             "ResetCompleted", "Readmitted", "Succeeded"});
  REQUIRE(h.eventually([&] {
    auto jobs = h.client().list(kube::resources::jobs, "respool-system");
    return jobs && (*jobs)["items"].empty();
  }));
}

TEST_CASE(
    "N3: a replacement with no idle node fails at its timeout and leaves the node in the pool",
    "[reconcilers][nodeop][rule:N3]") {
  Harness h({.nodes_yaml = cpu_nodes(3), .time_scale = 20});
  running_pool(h, "p", 3);
  auto members = names(h.pool_nodes("p"));
  h.apply(node_operation("r", "p", "Replace", {members[0]}, {{"timeout", "2m"}}),
          kube::resources::nodeoperations);
  REQUIRE(h.eventually([&] {
    auto node = h.get(kube::resources::nodes, members[0]);
    return node["spec"].value("unschedulable", false);
  }));
  REQUIRE(h.eventually([&] { return op_phase(h, "r") == "Failed"; }, std::chrono::seconds(60)));
  auto s = op_status(h, "r");
  CHECK(s.value("reason", "") == "NoIdleNode");
  CHECK(s["nodes"][0].value("reason", "") == "NoIdleNode");
  REQUIRE(h.eventually([&] {
    auto node = h.get(kube::resources::nodes, members[0]);
    return !node["spec"].value("unschedulable", false) &&
           !node["metadata"]
                .value("annotations", Json::object())
                .contains("respool.io/node-operation");
  }));
  auto node = h.get(kube::resources::nodes, members[0]);
  CHECK(label(node, "respool.io/pool") == "p");
  CHECK(label(node, "respool.io/retired").empty());
  CHECK(h.has_event("r", "Failed",
                    "Replace Failed: " + members[0] + ": " + s["nodes"][0].value("message", "")));
  // A timeout above 24h is refused (N3): by the CRD's rule at apply, and the operator agrees.
  auto longer = h.client().create(
      kube::resources::nodeoperations, "",
      node_operation("r-long", "p", "Replace", {members[1]}, {{"timeout", "25h"}}));
  REQUIRE_FALSE(longer);
  CHECK(longer.error().message.find("24h") != std::string::npos);
}

TEST_CASE("N7: a reset of 6 nodes at 50% runs 3 at a time; a failed reset Job fails its node",
          "[reconcilers][nodeop][rule:N5][rule:N7]") {
  Harness h({.nodes_yaml = cpu_nodes(8), .time_scale = 20});  // a reset takes a simulated minute
  running_pool(h, "p", 8);
  NodeWatch watch(h.client(), "p");
  auto members = names(h.pool_nodes("p"));
  // One node's reset fails (the simulator's exit code on demand).
  REQUIRE(h.client().patch(
      kube::resources::nodes, "", members[5], kube::PatchType::Merge,
      {{"metadata", {{"annotations", {{"sandbox.respool.io/reset-exit-code", "3"}}}}}}));
  std::vector<std::string> six(members.begin(), members.begin() + 6);
  h.apply(node_operation("reset", "p", "Reset", six,
                         {{"reset", {{"os", "ubuntu-22.04"}, {"maxUnavailable", "50%"}}}}),
          kube::resources::nodeoperations);
  REQUIRE(
      h.eventually([&] { return op_phase(h, "reset") == "Failed"; }, std::chrono::seconds(180)));
  INFO(watch.log());
  CHECK(watch.most("Reset") == 3);
  auto s = op_status(h, "reset");
  int succeeded = 0;
  for (const auto& n : s["nodes"]) {
    if (n["name"] == members[5]) {
      CHECK(n.value("phase", "") == "Failed");
      CHECK(n.value("reason", "") == "ResetFailed");
    } else {
      succeeded += n.value("phase", "") == "Succeeded";
    }
  }
  CHECK(succeeded == 5);
  CHECK(s.value("reason", "") == "ResetFailed");
  // The failed node stays cordoned, with the reason recorded on it; the others are back.
  REQUIRE(h.eventually([&] {
    auto failed = h.get(kube::resources::nodes, members[5]);
    return failed["metadata"]
        .value("annotations", Json::object())
        .contains("respool.io/cordon-reason");
  }));
  auto failed = h.get(kube::resources::nodes, members[5]);
  CHECK(failed["spec"].value("unschedulable", false));
  CHECK_FALSE(has_taint(failed, "respool.io/resetting"));
  for (const auto& n : h.nodes())
    CHECK_FALSE(cordoned_by_respool_without_record(n));
  // N5: only Available nodes are reset.
  h.simulator().add_fault(members[6], "Isolate=A050101");
  REQUIRE(h.eventually([&] { return h.pool("p")["status"]["nodes"].value("abnormal", 0) == 1; }));
  h.apply(node_operation("sick", "p", "Reset", {members[6]}, {{"reset", {{"os", "x"}}}}),
          kube::resources::nodeoperations);
  REQUIRE(h.eventually([&] { return op_phase(h, "sick") == "Rejected"; }));
  CHECK(op_status(h, "sick").value("reason", "") == "NodeNotAvailable");
}

TEST_CASE("N8: Delete returns nodes to the free inventory, never the last one",
          "[reconcilers][nodeop][rule:N8][rule:A1]") {
  Harness h({.nodes_yaml = cpu_nodes(5)});
  running_pool(h, "p", 3);
  auto members = names(h.pool_nodes("p"));

  SECTION("with the count lowered in the same change, exactly that node leaves") {
    NodeWatch watch(h.client(), "p");
    h.apply(node_operation("d", "p", "Delete", {members[1]}), kube::resources::nodeoperations);
    h.patch_pool("p", {{"resources", Json::array({{{"flavor", "cpu-64c"}, {"count", 2}}})}});
    const bool done =
        h.eventually([&] { return op_phase(h, "d") == "Succeeded"; }, std::chrono::seconds(60));
    INFO("operation: " << op_status(h, "d").dump() << "\npool: " << h.pool("p")["status"].dump()
                       << "\nnodes: " << watch.log());
    REQUIRE(done);
    REQUIRE(
        h.eventually([&] { return h.pool_nodes("p").size() == 2 && h.phase("p") == "Running"; }));
    auto now = names(h.pool_nodes("p"));
    CHECK(now == std::vector<std::string>{members[0], members[2]});
    auto gone = h.get(kube::resources::nodes, members[1]);
    CHECK(label(gone, "respool.io/pool").empty());
    CHECK(label(gone, "respool.io/retired").empty());  // back to the free inventory, clean
    CHECK_FALSE(gone["spec"].value("unschedulable", false));
  }
  SECTION("without a count change, a free node takes its place and the message says which") {
    h.apply(node_operation("d", "p", "Delete", {members[0]}), kube::resources::nodeoperations);
    REQUIRE(
        h.eventually([&] { return op_phase(h, "d") == "Succeeded"; }, std::chrono::seconds(60)));
    REQUIRE(
        h.eventually([&] { return h.pool_nodes("p").size() == 3 && h.phase("p") == "Running"; }));
    auto now = names(h.pool_nodes("p"));
    CHECK(std::find(now.begin(), now.end(), members[0]) == now.end());
    const std::string message = op_status(h, "d")["nodes"][0].value("message", "");
    INFO(message);
    CHECK(message.find("took its place") != std::string::npos);
  }
  SECTION("deleting every node is refused") {
    h.apply(node_operation("all", "p", "Delete", members), kube::resources::nodeoperations);
    REQUIRE(h.eventually([&] { return op_phase(h, "all") == "Rejected"; }));
    CHECK(op_status(h, "all").value("reason", "") == "LastNode");
    CHECK(h.pool_nodes("p").size() == 3);
  }
}

TEST_CASE("a PodDisruptionBudget that blocks a drain holds the replacement without breaking it",
          "[reconcilers][nodeop][rule:N3]") {
  Harness h({.nodes_yaml = cpu_nodes(4)});
  running_pool(h, "p", 3);
  auto members = names(h.pool_nodes("p"));
  guarded_pod(h, members[0]);
  h.apply(node_operation("r", "p", "Replace", {members[0]}), kube::resources::nodeoperations);
  REQUIRE(h.eventually([&] { return op_status(h, "r").value("reason", "") == "DrainBlocked"; }));
  CHECK(op_status(h, "r").value("message", "").find("keep-g") != std::string::npos);
  // Held: the pod runs, the node stays cordoned and in the pool.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  CHECK(h.get(kube::resources::pods, "guarded", "default")["status"].value("phase", "") ==
        "Running");
  auto node = h.get(kube::resources::nodes, members[0]);
  CHECK(node["spec"].value("unschedulable", false));
  CHECK(label(node, "respool.io/pool") == "p");
  // The budget allows it: the drain goes on and the replacement finishes.
  REQUIRE(h.client().remove(kube::resources::poddisruptionbudgets, "default", "keep-g"));
  REQUIRE(h.eventually([&] { return op_phase(h, "r") == "Succeeded"; }, std::chrono::seconds(60)));
  CHECK(op_status(h, "r")["interruptedJobs"] == Json::array({"default/guarded"}));
}
