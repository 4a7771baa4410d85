// Driver upgrades, written (issue 14): the node patches of each transition (D4's taint, the
// cordon respool records and only undoes when it made it, a failure's cause, retries), the
// driver DaemonSet (OnDelete), the catalog's offered versions, and the progress the pool reports.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/driver_daemonset.hpp"
#include "reconcilers/policy/driver_upgrade_patch.hpp"
#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/node_state.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::NodeBuilder;

namespace {

UpgradeStep move_to(UpgradeState from, UpgradeState to) {
  return UpgradeStep{"n", from, to, UpgradeAction::None, "", ""};
}

json patch_of(const NodeBuilder& b, UpgradeState from, UpgradeState to) {
  return upgrade_patch(b.view(), move_to(from, to), AcceleratorType::GPU, "2026-11-24T10:00:00Z");
}

bool has_taint_in(const json& patch, const std::string& key) {
  for (const auto& t : patch["spec"].value("taints", json::array()))
    if (t.value("key", "") == key) return true;
  return false;
}

}  // namespace

TEST_CASE("D4: a node between cordon and uncordon carries A200001 and a recorded cordon",
          "[policy][driver][rule:D4]") {
  NodeBuilder b("n", "gpu-8x-a100");
  b.pool("p").label("respool.io/driver-upgrade-state", "upgrade-required");
  json p = patch_of(b, UpgradeState::Required, UpgradeState::CordonRequired);
  CHECK(p["metadata"]["resourceVersion"] == "7");  // guarded
  CHECK(p["metadata"]["labels"]["respool.io/driver-upgrade-state"] == "cordon-required");
  CHECK(p["metadata"]["annotations"]["respool.io/driver-upgrade-since"] == "2026-11-24T10:00:00Z");
  CHECK(p["spec"]["unschedulable"] == true);
  CHECK(p["metadata"]["annotations"]["respool.io/cordoned-by"] == "driver-upgrade");
  CHECK(has_taint_in(p, "isolation.respool.io/A200001"));
  CHECK(has_taint_in(p, "respool.io/pool"));  // the list is rewritten whole, others kept
  // NPU nodes carry A200002.
  json npu = upgrade_patch(b.view(), move_to(UpgradeState::Required, UpgradeState::CordonRequired),
                           AcceleratorType::NPU, "t");
  CHECK(has_taint_in(npu, "isolation.respool.io/A200002"));
}

TEST_CASE("a node an administrator cordoned is upgraded and left cordoned",
          "[policy][driver][rule:D1]") {
  NodeBuilder b("n", "gpu-8x-a100");
  b.pool("p");
  b.node["spec"]["unschedulable"] = true;
  json cordon = patch_of(b, UpgradeState::Required, UpgradeState::CordonRequired);
  CHECK_FALSE(cordon["spec"].contains("unschedulable"));
  CHECK_FALSE(cordon["metadata"]["annotations"].contains("respool.io/cordoned-by"));
  b.taint("isolation.respool.io/A200001");
  json done = patch_of(b, UpgradeState::UncordonRequired, UpgradeState::Done);
  CHECK_FALSE(done["spec"].contains("unschedulable"));  // not ours to lift
  CHECK_FALSE(has_taint_in(done, "isolation.respool.io/A200001"));
  CHECK(done["metadata"]["labels"]["respool.io/driver-upgrade-state"] == "upgrade-done");
  // One respool cordoned is uncordoned, and the record goes.
  b.node["metadata"]["annotations"]["respool.io/cordoned-by"] = "driver-upgrade";
  json ours = patch_of(b, UpgradeState::UncordonRequired, UpgradeState::Done);
  CHECK(ours["spec"]["unschedulable"] == false);
  CHECK(ours["metadata"]["annotations"]["respool.io/cordoned-by"].is_null());
  // A NodeOperation's cordon is not the upgrade's either.
  b.node["metadata"]["annotations"]["respool.io/cordoned-by"] = "op-1";
  CHECK_FALSE(patch_of(b, UpgradeState::UncordonRequired, UpgradeState::Done)["spec"].contains(
      "unschedulable"));
}

TEST_CASE("a failed node stays cordoned with its cause; a retry counts and clears it",
          "[policy][driver][rule:D4]") {
  NodeBuilder b("n", "gpu-8x-a100");
  b.pool("p").taint("isolation.respool.io/A200001");
  b.node["spec"]["unschedulable"] = true;
  b.node["metadata"]["annotations"]["respool.io/cordoned-by"] = "driver-upgrade";
  UpgradeStep fail = move_to(UpgradeState::ValidationRequired, UpgradeState::Failed);
  fail.reason = "ValidationTimeout";
  fail.message = "driver pod not Ready";
  json p = upgrade_patch(b.view(), fail, AcceleratorType::GPU, "t");
  CHECK_FALSE(p["spec"].contains("unschedulable"));  // stays cordoned
  CHECK_FALSE(has_taint_in(p, "isolation.respool.io/A200001"));
  CHECK(p["metadata"]["annotations"]["respool.io/driver-upgrade-failure"] ==
        "ValidationTimeout: driver pod not Ready");
  // As the pool sees it: abnormal, naming the cause (Degraded names the node).
  b.label("respool.io/driver-upgrade-state", "upgrade-failed");
  b.node["metadata"]["annotations"]["respool.io/driver-upgrade-failure"] =
      "ValidationTimeout: driver pod not Ready";
  b.node["spec"]["taints"] =
      json::array({{{"key", "respool.io/pool"}, {"value", "p"}, {"effect", "NoSchedule"}}});
  const NodeClass c = classify_node(b.view(), nullptr);
  CHECK(c.state == NodeState::Abnormal);
  CHECK(c.codes == std::vector<std::string>{"driver upgrade failed: ValidationTimeout"});
  // The retry: attempts counted, cause cleared, taint back on.
  b.node["metadata"]["annotations"]["respool.io/driver-upgrade-attempts"] = "1";
  json retry = patch_of(b, UpgradeState::Failed, UpgradeState::DriverRestartRequired);
  CHECK(retry["metadata"]["annotations"]["respool.io/driver-upgrade-attempts"] == "2");
  CHECK(retry["metadata"]["annotations"]["respool.io/driver-upgrade-failure"].is_null());
  CHECK(has_taint_in(retry, "isolation.respool.io/A200001"));
  CHECK(read_upgrade_node(b.view(), "550").attempts == 1);
  // An action alone writes nothing.
  CHECK(
      patch_of(b, UpgradeState::PodDeletionRequired, UpgradeState::PodDeletionRequired).is_null());
}

TEST_CASE("the driver DaemonSet restarts nothing by itself and runs only on the pool's GPU nodes",
          "[policy][driver][rule:P13]") {
  const Catalog catalog = respool::policy::test::test_catalog();
  ResourcePoolSpec spec;
  spec.resources = {{"gpu-8x-a100", 4, {}, 50}, {"cpu-64c", 2, {}, 50}};
  spec.driver = DriverSpec{"550.54.15", std::nullopt, UpgradeMode::Secure, std::nullopt};
  auto sets = render_driver_daemonsets(catalog, PoolRef{"p", "uid-1"}, spec, "respool-system");
  REQUIRE(sets.size() == 1);
  const json& ds = sets[0].manifest;
  CHECK(sets[0].name == "p-gpu-driver");
  CHECK(ds["metadata"]["namespace"] == "respool-system");
  CHECK(ds["metadata"]["labels"]["respool.io/driver"] == "GPU");
  CHECK_FALSE(ds["metadata"]["labels"].contains("respool.io/job-type"));  // not a plug-in
  CHECK(ds["metadata"]["ownerReferences"][0]["uid"] == "uid-1");
  CHECK(ds["spec"]["updateStrategy"]["type"] == "OnDelete");
  CHECK(ds["spec"]["template"]["metadata"]["annotations"]["respool.io/driver-version"] ==
        "550.54.15");
  CHECK(ds["spec"]["template"]["spec"]["containers"][0]["image"] ==
        "registry.example/gpu-driver:550.54.15");
  CHECK(ds["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
          ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
          ["matchExpressions"][0]["values"] == json::array({"gpu-8x-a100"}));
  CHECK(driver_target(catalog, spec, "gpu-8x-a100") == "550.54.15");
  CHECK(driver_target(catalog, spec, "cpu-64c").empty());
  spec.driver.reset();
  CHECK(render_driver_daemonsets(catalog, PoolRef{"p", "u"}, spec, "ns").empty());
}

TEST_CASE("a version the catalog does not offer is InvalidSpec", "[policy][driver][rule:P13]") {
  json doc = respool::policy::test::catalog_json();
  doc["drivers"]["GPU"]["versions"] = json::array({"535.104.05", "550.54.15"});
  const Catalog catalog = parse_catalog(doc).value();
  ResourcePoolSpec spec;
  spec.job_types = {JobType::Training};
  spec.network = "net";
  spec.resources = {{"gpu-8x-a100", 2, {}, 50}};
  spec.driver = DriverSpec{"550.54.15", std::nullopt, UpgradeMode::Secure, std::nullopt};
  CHECK(validate_pool(spec, "p", catalog).empty());
  spec.driver->gpu_version = "999.1";
  auto v = validate_pool(spec, "p", catalog);
  REQUIRE(v.size() == 1);
  CHECK(v[0].field == "spec.driver.gpuVersion");
  CHECK(v[0].message ==
        "\"999.1\" is not a driver version the catalog offers for GPU (535.104.05, 550.54.15)");
  doc["drivers"]["GPU"]["versions"] = json::array();
  CHECK_FALSE(parse_catalog(doc).has_value());
}

TEST_CASE("the pool's driver progress: counts, failed nodes with causes, the condition",
          "[policy][driver][rule:D3]") {
  auto node = [](std::string name, std::string running, UpgradeState s) {
    UpgradedNode u;
    u.node.name = std::move(name);
    u.node.running = std::move(running);
    u.node.target = "550";
    u.node.state = s;
    return u;
  };
  std::vector<UpgradedNode> nodes = {
      node("a", "550", UpgradeState::Done), node("b", "535", UpgradeState::ValidationRequired),
      node("c", "535", UpgradeState::Required), node("d", "535", UpgradeState::None),
      node("e", "535", UpgradeState::Failed)};
  nodes[4].failure = "ValidationTimeout: not Ready";
  auto p = driver_progress(nodes, std::string("550"), std::nullopt);
  CHECK(p.counts == UpgradeCounts{1, 1, 2, 1});
  CHECK(p.upgrading);
  CHECK_FALSE(p.gpu_version);  // the nodes disagree
  json s = driver_status_json(p);
  CHECK(s["target"]["gpuVersion"] == "550");
  CHECK(s["failedNodes"] ==
        json::array({{{"name", "e"}, {"reason", "ValidationTimeout"}, {"message", "not Ready"}}}));
  auto c = driver_condition(p, std::nullopt, "Secure, 1 at a time");
  CHECK(c.status == "True");
  CHECK(c.message ==
        "upgrading to GPU driver 550 (Secure, 1 at a time): 1 upgraded, 1 upgrading, 2 pending, "
        "1 failed");
  // D3: a pool that is not Running does not start; the condition says why.
  ResourcePoolSpec spec;
  CHECK(driver_block(spec, "Running") == std::nullopt);
  CHECK(driver_block(spec, "Upgrading") == std::nullopt);
  auto blocked = driver_block(spec, "Scaling");
  REQUIRE(blocked);
  CHECK(blocked->reason == "PoolNotRunning");
  std::vector<UpgradedNode> waiting = {node("d", "535", UpgradeState::None)};
  auto w =
      driver_condition(driver_progress(waiting, std::string("550"), std::nullopt), blocked, "");
  CHECK(w.status == "False");
  CHECK(w.reason == "PoolNotRunning");
  CHECK(w.message ==
        "the pool is Scaling; a driver upgrade starts only on a Running pool (D3); 1 of the nodes "
        "wait for GPU driver 550");
  // P13: a Logical pool without node binding.
  spec.type = PoolType::Logical;
  CHECK(driver_block(spec, "Running")->reason == "NodeBindingRequired");
  std::vector<UpgradedNode> done = {node("a", "550", UpgradeState::Done)};
  auto up = driver_progress(done, std::string("550"), std::nullopt);
  CHECK(up.gpu_version == "550");
  CHECK(driver_condition(up, std::nullopt, "").reason == "UpToDate");
}
