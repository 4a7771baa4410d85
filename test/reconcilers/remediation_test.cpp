// Automatic remediation against the sandbox (issue 27, N10–N17): lasting faults get automatic
// NodeOperations, one Replace at a time within the pool's daily budget that people's operations
// share, a reset that leaves the fault escalates to a Replace, and the circuit breaker stops
// everything new when too much of the pool is abnormal. Limits are checked by watching the
// nodes, not by reading the operator's status.
#include <set>

#include "test/reconcilers/harness.hpp"
#include "test/reconcilers/node_watch.hpp"

using namespace respool;
using namespace respool::test;

namespace {

std::string cpu_nodes(int count, const std::string& prefix) {
  return "nodes:\n- {flavor: cpu-64c, zone: az-1, count: " + std::to_string(count) +
         ", namePrefix: " + prefix + ", capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n";
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

// A Running pool of `count` cpu-64c nodes with `remediation`.
void running_pool(Harness& h, const std::string& name, int count, const Json& remediation) {
  h.apply(network_manifest("net-" + name), kube::resources::networks);
  Json pool =
      pool_manifest(name, "net-" + name, Json::array({{{"flavor", "cpu-64c"}, {"count", count}}}));
  pool["spec"]["remediation"] = remediation;
  h.apply(pool, kube::resources::resourcepools);
  REQUIRE(h.eventually(
      [&] { return h.phase(name) == "Running" && h.pool_nodes(name).size() == std::size_t(count); },
      std::chrono::seconds(120)));
}

std::vector<std::string> member_names(Harness& h, const std::string& pool) {
  std::vector<std::string> out;
  for (const auto& n : h.pool_nodes(pool))
    out.push_back(n["metadata"]["name"]);
  std::sort(out.begin(), out.end());
  return out;
}

// The automatic NodeOperations (label respool.io/remediation=auto): name -> phase.
std::map<std::string, std::string> automatic_operations(Harness& h) {
  kube::ListOptions o;
  o.label_selector = "respool.io/remediation=auto";
  auto list = h.client().list(kube::resources::nodeoperations, "", o);
  REQUIRE(list);
  std::map<std::string, std::string> out;
  for (const auto& op : (*list)["items"])
    out[op["metadata"]["name"]] = op.value("status", Json::object()).value("phase", "");
  return out;
}

int succeeded(const std::map<std::string, std::string>& ops) {
  return static_cast<int>(std::count_if(ops.begin(), ops.end(),
                                        [](const auto& op) { return op.second == "Succeeded"; }));
}

Json remediation(const Json& steps, const std::string& after = "30s") {
  return {{"rules", {{{"codes", {"A050101"}}, {"after", after}, {"steps", steps}}}},
          {"maxUnhealthy", "20%"}};
}

Json condition(const Json& pool, const std::string& type) {
  for (const auto& c : pool.value("status", Json::object()).value("conditions", Json::array()))
    if (c.value("type", "") == type) return c;
  return Json::object();
}

}  // namespace

TEST_CASE(
    "N12/N14: four faults in a 20-node pool are replaced one at a time within the daily limit, "
    "which a person's operation shares; 6 of 20 abnormal pause remediation",
    "[reconcilers][remediation][rule:N1][rule:N2][rule:N11][rule:N12][rule:N14]") {
  Harness h({.nodes_yaml = cpu_nodes(20, "a-"), .time_scale = 20});
  running_pool(h, "p", 20, remediation(Json::array({{{"action", "Replace"}}})));
  add_free_nodes(h, 6, "spare-");
  NodeWatch watch(h.client(), "p");
  const auto members = member_names(h, "p");
  // Four nodes turn faulty within a (simulated) minute.
  for (int i = 0; i < 4; ++i) {
    REQUIRE(h.simulator().add_fault(members[i], "Isolate=A050101"));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // 10 simulated seconds
  }
  REQUIRE(h.eventually([&] { return succeeded(automatic_operations(h)) == 4; },
                       std::chrono::seconds(180)));
  INFO(watch.log());
  // 5% of 20 is 1: one replacement at a time; each faulty node got exactly one operation.
  CHECK(watch.most("Replace") == 1);
  auto ops = automatic_operations(h);
  CHECK(ops.size() == 4);
  for (int i = 0; i < 4; ++i) {
    std::string lower = "auto-" + members[i] + "-a050101-1-1";
    CHECK(ops.contains(lower));
  }
  CHECK(h.pool_nodes("p").size() == 20);
  // 20% of 20 is 4 a day: a person's fifth replacement waits, naming the daily limit.
  const auto now_members = member_names(h, "p");
  Json person = {{"apiVersion", "respool.io/v1alpha1"},
                 {"kind", "NodeOperation"},
                 {"metadata", {{"name", "person"}}},
                 {"spec", {{"pool", "p"}, {"type", "Replace"}, {"nodes", {now_members[10]}}}}};
  h.apply(person, kube::resources::nodeoperations);
  REQUIRE(h.eventually([&] {
    auto s = h.get(kube::resources::nodeoperations, "person").value("status", Json::object());
    return s.value("phase", "") == "Pending" && s.value("reason", "") == "ReplaceLimitPerDay";
  }));
  REQUIRE(h.client().remove(kube::resources::nodeoperations, "", "person"));

  // 6 of 20 abnormal (30% > 20%): paused, and nothing new starts however long the faults last.
  for (int i = 0; i < 6; ++i)
    REQUIRE(h.simulator().add_fault(now_members[i], "Isolate=A050101"));
  REQUIRE(h.eventually([&] {
    Json c = condition(h.pool("p"), "RemediationPaused");
    return c.value("status", "") == "True" &&
           c.value("message", "").find("6 of 20 nodes abnormal (30%)") != std::string::npos;
  }));
  Json paused = condition(h.pool("p"), "RemediationPaused");
  CHECK(paused.value("reason", "") == "TooManyUnhealthy");
  CHECK(paused.value("message", "").find("6 of 20 nodes abnormal (30%)") != std::string::npos);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // a simulated minute: past `after`
  CHECK(automatic_operations(h).size() == 4);
  Json status = h.pool("p")["status"]["remediation"];
  CHECK(status.value("paused", false));
  CHECK(status.value("unhealthy", 0) == 6);
  REQUIRE(status["nodes"].size() == 6);
  for (const auto& n : status["nodes"])
    CHECK(n.value("state", "") == "Paused");
  // The metrics say it too (the pool's events may be past client-go's spam filter by now).
  const std::string metrics = h.manager().metrics().render();
  CHECK(metrics.find("respool_remediation_paused{pool=\"p\"} 1") != std::string::npos);
  CHECK(metrics.find(
            "respool_remediations_total{action=\"Replace\",pool=\"p\",result=\"Created\"} 4") !=
        std::string::npos);
  CHECK(metrics.find(
            "respool_remediations_total{action=\"Replace\",pool=\"p\",result=\"Succeeded\"} 4") !=
        std::string::npos);
  // Two healed: 4 of 20 is not more than 20%, remediation resumes.
  REQUIRE(h.simulator().heal(now_members[0], "Isolate=A050101"));
  REQUIRE(h.simulator().heal(now_members[1], "Isolate=A050101"));
  REQUIRE(h.eventually(
      [&] { return condition(h.pool("p"), "RemediationPaused").value("status", "") == "False"; }));
}

TEST_CASE("N13/N17: an automatic reset that leaves the fault escalates to a replacement",
          "[reconcilers][remediation][rule:N13][rule:N17]") {
  Harness h({.nodes_yaml = cpu_nodes(5, "a-"), .time_scale = 20});
  running_pool(
      h, "p", 5,
      remediation(Json::array({{{"action", "Reset"}, {"os", "ubuntu-22.04"}, {"timeout", "2m"}},
                               {{"action", "Replace"}}})));
  add_free_nodes(h, 1, "spare-");
  const auto members = member_names(h, "p");
  const std::string sick = members[2];
  REQUIRE(h.simulator().add_fault(sick, "Isolate=A050101"));
  const std::string reset = "auto-" + sick + "-a050101-1-1";
  const std::string replace = "auto-" + sick + "-a050101-2-1";
  REQUIRE(h.eventually([&] { return automatic_operations(h)[reset] == "Failed"; },
                       std::chrono::seconds(120)));
  CHECK(h.get(kube::resources::nodeoperations, reset)["status"].value("reason", "") ==
        "AbnormalAfterReset");
  // The fault stays; after the step's timeout the next step replaces the node.
  REQUIRE(h.eventually([&] { return automatic_operations(h)[replace] == "Succeeded"; },
                       std::chrono::seconds(120)));
  auto members_after = member_names(h, "p");
  CHECK(std::find(members_after.begin(), members_after.end(), sick) == members_after.end());
  CHECK(members_after.size() == 5);
  CHECK(automatic_operations(h).size() == 2);
  auto op = h.get(kube::resources::nodeoperations, replace);
  CHECK(op["metadata"]["ownerReferences"][0]["name"] == "p");
  CHECK(op["metadata"]["labels"]["respool.io/remediation-step"] == "2");
  // The replaced node left the pool: nothing is remembered of it.
  REQUIRE(h.eventually(
      [&] { return h.pool("p")["status"]["remediation"].value("nodes", Json::array()).empty(); }));
  bool started = false;
  for (const auto& e : h.events_for("p"))
    started = started || e.value("reason", "") == "RemediationStarted";
  CHECK(started);
}

TEST_CASE(
    "N16/N18: a dry run writes the automatic operation as a preview and touches no node; "
    "turned off, the step runs for real",
    "[reconcilers][remediation][rule:N16][rule:N18]") {
  Harness h({.nodes_yaml = cpu_nodes(5, "a-"), .time_scale = 20});
  Json rules = remediation(Json::array({{{"action", "Replace"}}}));
  rules["dryRun"] = true;
  running_pool(h, "p", 5, rules);
  add_free_nodes(h, 1, "spare-");
  const auto members = member_names(h, "p");
  const std::string sick = members[1];
  REQUIRE(h.simulator().add_fault(sick, "Isolate=A050101"));
  const std::string previewed = "auto-" + sick + "-a050101-1-1";
  REQUIRE(h.eventually([&] { return automatic_operations(h)[previewed] == "Previewed"; },
                       std::chrono::seconds(60)));
  const Json op = h.get(kube::resources::nodeoperations, previewed);
  CHECK(op["spec"].value("preview", false));
  CHECK(op["status"]["preview"]["nodes"][0]["replacement"].value("node", "").starts_with("spare-"));
  REQUIRE(h.eventually([&] {
    const Json nodes = h.pool("p")["status"]["remediation"].value("nodes", Json::array());
    return nodes.size() == 1 && nodes[0].value("state", "") == "Previewed";
  }));
  // Nothing was done: the node is in the pool and not cordoned, nothing in the ledger, and no
  // second operation however long the fault lasts.
  const std::string sick_version =
      h.get(kube::resources::nodes, sick)["metadata"].value("resourceVersion", "");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const Json node = h.get(kube::resources::nodes, sick);
  CHECK(node["metadata"].value("resourceVersion", "") == sick_version);
  CHECK_FALSE(node["spec"].value("unschedulable", false));
  CHECK(label(node, "respool.io/pool") == "p");
  CHECK(h.pool("p")["status"]["nodeOperations"].value("active", Json::array()).empty());
  CHECK(automatic_operations(h).size() == 1);
  const std::string metrics = h.manager().metrics().render();
  CHECK(metrics.find(
            "respool_remediations_total{action=\"Replace\",pool=\"p\",result=\"Previewed\"} 1") !=
        std::string::npos);
  CHECK(metrics.find(
            "respool_remediations_total{action=\"Replace\",pool=\"p\",result=\"Created\"} 0") !=
        std::string::npos);
  // Dry run off: the step runs as a new attempt beside the preview.
  REQUIRE(h.client().patch(kube::resources::resourcepools, "", "p", kube::PatchType::Merge,
                           {{"spec", {{"remediation", {{"dryRun", false}}}}}}));
  const std::string real = "auto-" + sick + "-a050101-1-2";
  REQUIRE(h.eventually([&] { return automatic_operations(h)[real] == "Succeeded"; },
                       std::chrono::seconds(120)));
  CHECK(automatic_operations(h)[previewed] == "Previewed");
}
