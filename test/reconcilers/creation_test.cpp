// A pool comes up from free nodes: claims per flavor and zone, labels and taints, admission,
// Running, events, records, audit lines, metrics.
#include <algorithm>
#include <map>
#include <set>

#include "test/reconcilers/harness.hpp"

using namespace respool;
using namespace respool::test;

namespace {
const char* kNodes = R"(
nodes:
- {flavor: gpu-8x-a100, zone: az-1, count: 3, namePrefix: a100-az1-, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
- {flavor: gpu-8x-a100, zone: az-2, count: 3, namePrefix: a100-az2-, capacity: {cpu: "96", memory: 1Ti, pods: "110", nvidia.com/gpu: "8"}}
- {flavor: cpu-64c, zone: az-1, count: 2, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)";
}  // namespace

TEST_CASE("a pool is built from free nodes per flavor and zone",
          "[reconcilers][rule:P4][rule:P7][rule:N9][rule:P8][rule:P9][rule:A1][rule:F3]") {
  Harness h({.nodes_yaml = kNodes});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("gpu-a", "net-a",
                        Json::array({{{"flavor", "gpu-8x-a100"},
                                      {"count", 4},
                                      {"zones", Json::array({{{"zone", "az-1"}, {"count", 2}},
                                                             {{"zone", "az-2"}, {"count", 2}}})},
                                      {"containerEngineSpaceGiB", 100}},
                                     {{"flavor", "cpu-64c"}, {"count", 1}}}),
                        Json::array({"Training", "Inference"})),
          kube::resources::resourcepools);

  REQUIRE(h.eventually([&] { return h.phase("gpu-a") == "Running"; }));
  auto pool = h.pool("gpu-a");
  const auto& status = pool["status"];
  CHECK(status["nodes"]["total"] == 5);
  CHECK(status["nodes"]["available"] == 5);
  CHECK(status["nodes"]["queuing"] == 0);
  CHECK(status["observedGeneration"] == pool["metadata"]["generation"]);

  auto nodes = h.pool_nodes("gpu-a");
  REQUIRE(nodes.size() == 5);
  int az1 = 0, az2 = 0, cpu = 0;
  for (const auto& n : nodes) {
    const std::string flavor = label(n, "node.kubernetes.io/instance-type");
    const std::string zone = label(n, "topology.kubernetes.io/zone");
    if (flavor == "gpu-8x-a100" && zone == "az-1") ++az1;
    if (flavor == "gpu-8x-a100" && zone == "az-2") ++az2;
    if (flavor == "cpu-64c") ++cpu;
    CHECK(label(n, "respool.io/job-type.training") == "true");
    CHECK(label(n, "respool.io/job-type.inference") == "true");
    CHECK(has_taint(n, "respool.io/pool"));
    CHECK_FALSE(has_taint(n, "isolation.respool.io/A200008"));  // admission over (F3)
    const std::string space =
        n["metadata"]["annotations"].value("respool.io/container-engine-space", "");
    CHECK(space == (flavor == "cpu-64c" ? "50" : "100"));  // P5
  }
  CHECK(az1 == 2);
  CHECK(az2 == 2);
  CHECK(cpu == 1);

  // P8: the exact event messages.
  CHECK(h.eventually([&] {
    return h.has_event("gpu-a", "PoolStatusChange",
                       "Pool status changed, from Creating to Running.");
  }));
  CHECK(h.eventually([&] {
    for (const auto& e : h.events_for("gpu-a")) {
      if (e.value("reason", "") == "PoolResourcesStatusChange" &&
          e.value("note", "").find("to 5/0/0/0.") != std::string::npos) {
        return true;
      }
    }
    return false;
  }));

  // P9: the creation is recorded, with the nodes it claimed.
  const auto& records = status["records"];
  REQUIRE(records.size() >= 1);
  CHECK(records[0]["operation"] == "Create");
  CHECK(records[0]["phase"] == "Succeeded");
  CHECK(records[0]["nodes"].size() == 5);

  // A1: one audit line for the pool, one per node added.
  REQUIRE(h.eventually([&] {
    int adds = 0, creates = 0;
    for (const auto& line : h.audit_lines()) {
      if (line.value("operation", "") == "addClusterNode") ++adds;
      if (line.value("operation", "") == "CreatePoolV2" && line.value("resource", "") == "gpu-a")
        ++creates;
    }
    return adds == 5 && creates == 1;
  }));

  // The network lists the pool; plug-ins of both job types are installed, scoped to the pool.
  REQUIRE(h.eventually([&] {
    auto used = h.network("net-a").value("status", Json::object()).value("usedBy", Json::array());
    return used == Json::array({"gpu-a"});
  }));
  auto training = h.get(kube::resources::daemonsets, "gpu-a-training-agent", "respool-system");
  CHECK(training["spec"]["template"]["spec"]["nodeSelector"]["respool.io/pool"] == "gpu-a");
  CHECK(training["metadata"]["ownerReferences"][0]["name"] == "gpu-a");
  CHECK(h.get(kube::resources::daemonsets, "gpu-a-inference-gateway",
              "respool-system")["metadata"]["name"] == "gpu-a-inference-gateway");

  // Metrics, written after the status that shows them (the free-node gauge at most once a
  // second): the pool's node counts, phase and Create operation, and the free nodes left per
  // flavor and zone (3-2, 3-2 and 2-1).
  const std::vector<std::string> series = {
      R"(respool_pool_nodes{flavor="gpu-8x-a100",pool="gpu-a",state="Available"} 4)",
      R"(respool_pool_phase{phase="Running",pool="gpu-a"} 1)",
      R"(respool_operations_total{operation="Create",pool="gpu-a",result="Succeeded"} 1)",
      R"(respool_free_nodes{flavor="gpu-8x-a100",zone="az-1"} 1)",
      R"(respool_free_nodes{flavor="gpu-8x-a100",zone="az-2"} 1)",
      R"(respool_free_nodes{flavor="cpu-64c",zone="az-1"} 1)",
      R"(controller_runtime_reconcile_total{controller="resourcepool",result="success"})"};
  std::string text;
  CHECK(h.eventually([&] {
    text = h.manager().metrics().render();
    return std::all_of(series.begin(), series.end(),
                       [&](const auto& s) { return text.find(s) != std::string::npos; });
  }));
  for (const auto& s : series)
    CHECK_THAT(text, Catch::Contains(s));
}

TEST_CASE("a create is audited before the status that acknowledges it and once for all its retries",
          "[reconcilers][rule:A1]") {
  // An operator killed between its status write and the record (the soak, seed 1710610888) left
  // a pool with no CreatePoolV2: its successor saw the status acknowledge the spec and wrote
  // none. Status writes refused stand in for the kill: the record is there while no status is.
  Harness h({.nodes_yaml = kNodes});
  auto records = [&](const std::string& operation, const std::string& resource) {
    int n = 0;
    for (const auto& line : h.audit_lines())
      n += line.value("operation", "") == operation && line.value("resource", "") == resource;
    return n;
  };
  auto& faults = h.sandbox().api_server().faults();
  for (const char* resource : {"networks/status", "resourcepools/status"})
    faults.fail_next({"update", resource, sandbox::FaultRule::Action::ServerError, 1000, 0});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("gpu-a", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 1}}}),
                        Json::array({"Training"})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] {
    return records("CreateNetworksV1", "net-a") == 1 && records("CreatePoolV2", "gpu-a") == 1;
  }));
  CHECK_FALSE(h.network("net-a").contains("status"));
  CHECK_FALSE(h.pool("gpu-a").contains("status"));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // retries, each refused
  faults.clear();
  REQUIRE(h.eventually([&] { return h.phase("gpu-a") == "Running"; }));
  CHECK(records("CreateNetworksV1", "net-a") == 1);
  CHECK(records("CreatePoolV2", "gpu-a") == 1);
}

TEST_CASE("short of free nodes a pool waits, saying what is missing, and goes on when they come",
          "[reconcilers][rule:N9][rule:P6]") {
  Harness h({.nodes_yaml = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 1, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)"});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 3}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] {
    auto status = h.pool("p").value("status", Json::object());
    return status.value("nodes", Json::object()).value("queuing", -1) == 2;
  }));
  auto status = h.pool("p")["status"];
  CHECK(status["phase"] == "Creating");
  bool reason = false;
  for (const auto& c : status["conditions"]) {
    if (c["type"] == "Ready") {
      CHECK(c["reason"] == "InsufficientFreeNodes");
      CHECK_THAT(c["message"].get<std::string>(), Catch::Contains("2 of flavor cpu-64c"));
      reason = true;
    }
  }
  CHECK(reason);

  REQUIRE(h.simulator().load_nodes_yaml(R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 2, namePrefix: late-cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)"));
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));
  CHECK(h.pool_nodes("p").size() == 3);
}

TEST_CASE("claims are batched: never more than 30 nodes in admission at once",
          "[reconcilers][rule:P6][rule:P4]") {
  Harness h({.nodes_yaml = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 23, namePrefix: cpu-a, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
- {flavor: cpu-64c, zone: az-2, count: 22, namePrefix: cpu-b, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)"});
  // Watch every node change and keep the largest number in admission seen at any moment.
  std::atomic<int> most{0};
  std::atomic<bool> stop{false};
  auto list = h.client().list(kube::resources::nodes, "");
  REQUIRE(list);
  std::string rv = (*list)["metadata"]["resourceVersion"];
  std::thread watcher([&] {
    std::map<std::string, bool> admitting;
    while (!stop) {
      kube::WatchOptions o;
      o.resource_version = rv;
      o.timeout_seconds = 120;
      auto watch = h.client().watch(kube::resources::nodes, "", o);
      if (!watch) continue;
      while (!stop) {
        // A read that times out closes the connection: watch again from the last version.
        auto line = (*watch)->next_line(200ms);
        if (!line || !line->has_value()) break;
        auto event = Json::parse(**line);
        const auto& node = event["object"];
        rv = node["metadata"].value("resourceVersion", rv);
        if (event["type"] == "BOOKMARK") continue;
        admitting[node["metadata"]["name"]] = event["type"] != "DELETED" &&
                                              !label(node, "respool.io/pool").empty() &&
                                              has_taint(node, "isolation.respool.io/A200008");
        int now = 0;
        for (const auto& [name, in] : admitting)
          now += in ? 1 : 0;
        most = std::max(most.load(), now);
      }
    }
  });
  h.apply(network_manifest("net-a"), kube::resources::networks);
  // 40 nodes over 2 zones.
  h.apply(
      pool_manifest("big", "net-a",
                    Json::array({{{"flavor", "cpu-64c"},
                                  {"count", 40},
                                  {"zones", Json::array({{{"zone", "az-1"}, {"count", 20}},
                                                         {{"zone", "az-2"}, {"count", 20}}})}}})),
      kube::resources::resourcepools);
  const bool running = h.eventually([&] { return h.phase("big") == "Running"; }, 120s);
  stop = true;
  watcher.join();
  INFO(h.pool("big").value("status", Json::object()).dump());
  REQUIRE(running);
  CHECK(h.pool_nodes("big").size() == 40);
  std::map<std::string, int> per_zone;
  for (const auto& n : h.pool_nodes("big"))
    ++per_zone[label(n, "topology.kubernetes.io/zone")];
  CHECK(per_zone["az-1"] == 20);
  CHECK(per_zone["az-2"] == 20);
  CHECK(most.load() >= 1);
  CHECK(most.load() <= 30);
}

TEST_CASE("two pools racing for the same free nodes never share one",
          "[reconcilers][rule:N9][rule:P4]") {
  Harness h({.nodes_yaml = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 10, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)"});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  // Both want 8 of the same 10 nodes, applied together: the claims race.
  h.apply(pool_manifest("left", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 8}}})),
          kube::resources::resourcepools);
  h.apply(pool_manifest("right", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 8}}})),
          kube::resources::resourcepools);
  auto total = [&](const char* pool) {
    return h.pool(pool)
        .value("status", Json::object())
        .value("nodes", Json::object())
        .value("total", -1);
  };
  // Together they hold all 10 and no more, and their statuses agree with the node labels.
  REQUIRE(h.eventually([&] {
    return h.pool_nodes("left").size() + h.pool_nodes("right").size() == 10 &&
           total("left") + total("right") == 10;
  }));
  std::set<std::string> left, right;
  for (const auto& n : h.pool_nodes("left"))
    left.insert(n["metadata"]["name"]);
  for (const auto& n : h.pool_nodes("right"))
    right.insert(n["metadata"]["name"]);
  for (const auto& name : left)
    CHECK_FALSE(right.contains(name));
  CHECK(left.size() <= 8);
  CHECK(right.size() <= 8);
  // What each pool recorded as claimed is disjoint too.
  auto recorded = [&](const char* pool) {
    std::set<std::string> out;
    const Json records = h.pool(pool)["status"].value("records", Json::array());
    for (const auto& r : records) {
      for (const auto& n : r.value("nodes", Json::array()))
        out.insert(n.get<std::string>());
    }
    return out;
  };
  const auto recorded_right = recorded("right");
  for (const auto& name : recorded("left"))
    CHECK_FALSE(recorded_right.contains(name));
  // The one short of nodes keeps waiting, and says so.
  CHECK((h.phase("left") == "Creating" || h.phase("right") == "Creating"));
}

TEST_CASE("a converged system writes nothing over a quiet simulated hour", "[reconcilers][quiet]") {
  // 120 simulated seconds per real second: an hour in 30 s.
  Harness h({.nodes_yaml = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 6, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)",
             .time_scale = 120});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  h.apply(pool_manifest("p", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 4}}})),
          kube::resources::resourcepools);
  REQUIRE(h.eventually([&] { return h.phase("p") == "Running"; }));
  // Settle: plug-in pods start, the last status and events go out.
  auto& counts = h.sandbox().api_server().request_counts();
  std::uint64_t before = counts.writes("respool");
  REQUIRE(h.eventually([&] {
    std::this_thread::sleep_for(1s);
    const auto now = counts.writes("respool");
    const bool still = now == before;
    before = now;
    return still;
  }));
  CHECK(before > 0);  // the creation's writes were counted as respool's
  counts.reset();
  const auto start = h.clock().now();
  while (h.clock().now() - start < std::chrono::hours(1))
    std::this_thread::sleep_for(500ms);
  std::string writes;
  for (const auto& [key, n] : counts.snapshot()) {
    if (key.agent == "respool" && sandbox::is_write_verb(key.verb)) {
      writes += key.verb + " " + key.resource + " x" + std::to_string(n) + "; ";
    }
  }
  INFO("writes by respool over the hour: " << writes);
  CHECK(counts.writes("respool") == 0);
  CHECK(h.phase("p") == "Running");
}

TEST_CASE("an invalid spec touches nothing and says which field breaks which rule",
          "[reconcilers][rule:P2][rule:P1]") {
  Harness h({.nodes_yaml = R"(
nodes:
- {flavor: cpu-64c, zone: az-1, count: 2, namePrefix: cpu-, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)"});
  h.apply(network_manifest("net-a"), kube::resources::networks);
  auto logical =
      pool_manifest("logical", "net-a", Json::array({{{"flavor", "cpu-64c"}, {"count", 1}}}),
                    Json::array({"Training", "Inference"}));
  logical["spec"]["type"] = "Logical";
  // The CRD's CEL rule refuses it at apply, as a real server does...
  auto refused = h.client().create(kube::resources::resourcepools, "", logical);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().describe(), Catch::Contains("a Logical pool accepts only Training"));
  // ...and where the rule is missing (a CRD of an older release), the operator refuses it itself.
  Json crd = h.get(kube::resources::customresourcedefinitions, "resourcepools.respool.io");
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].erase(
      "x-kubernetes-validations");
  REQUIRE(h.client().update(kube::resources::customresourcedefinitions, "", crd));
  h.apply(logical, kube::resources::resourcepools);
  REQUIRE(h.eventually([&] {
    for (const auto& c :
         h.pool("logical").value("status", Json::object()).value("conditions", Json::array())) {
      if (c["type"] == "Ready" && c["reason"] == "InvalidSpec") return true;
    }
    return false;
  }));
  auto status = h.pool("logical")["status"];
  std::string message;
  for (const auto& c : status["conditions"]) {
    if (c["type"] == "Ready") message = c["message"];
  }
  CHECK_THAT(message, Catch::Contains("spec.jobTypes") && Catch::Contains("P2"));
  CHECK(status["phase"] == "Failed");
  CHECK(h.pool_nodes("logical").empty());

  // A pool naming a missing network waits (P3).
  h.apply(
      pool_manifest("orphan", "no-such-net", Json::array({{{"flavor", "cpu-64c"}, {"count", 1}}})),
      kube::resources::resourcepools);
  REQUIRE(h.eventually([&] {
    for (const auto& c :
         h.pool("orphan").value("status", Json::object()).value("conditions", Json::array())) {
      if (c["type"] == "Ready" && c["reason"] == "NetworkNotReady") return true;
    }
    return false;
  }));
  CHECK(h.pool_nodes("orphan").empty());
}
