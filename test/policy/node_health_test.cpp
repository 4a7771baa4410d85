// H15, H16, F5: isolation taints from the node agent's conditions and from allocatable.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/node_health.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/time.hpp"

using namespace respool::policy;
using namespace respool::policy::test;
using Codes = std::vector<std::string>;
using std::chrono::minutes;
using std::chrono::seconds;

namespace {

const auto kNow = kT0 + std::chrono::hours(1);
const seconds kHeartbeat{300};

NodeBuilder gpu_node() {
  NodeBuilder n("n-1", "gpu-8x-a100");
  n.pool("gpu-a").allocatable("nvidia.com/gpu", "8");
  return n;
}

NodeBuilder& condition(NodeBuilder& n, const std::string& type, const std::string& status,
                       const std::string& reason, std::chrono::system_clock::time_point heartbeat) {
  n.node["status"]["conditions"].push_back(
      {{"type", type},
       {"status", status},
       {"reason", reason},
       {"message", "GPU 1 (GPU-b): volatile uncorrectable ECC errors: 2"},
       {"lastHeartbeatTime", format_time(heartbeat)}});
  return n;
}

NodeHealthDecision decide(const NodeBuilder& n) {
  const auto catalog = test_catalog();
  return decide_node_health(
      n.view(), agent_conditions_of(n.node),
      catalog.flavor_by_label(*n.view().label("node.kubernetes.io/instance-type")), kNow,
      kHeartbeat);
}

NodeBuilder& annotate(NodeBuilder& n, std::string_view key, const std::string& value) {
  n.node["metadata"]["annotations"][std::string(key)] = value;
  return n;
}

}  // namespace

TEST_CASE("H15: a False agent condition taints its code, NoSchedule, and records it",
          "[policy][health][rule:H15]") {
  auto n = gpu_node();
  condition(n, "GPUHealthy", "False", "A050101", kNow - minutes(1));
  condition(n, "ClockSynchronized", "True", "Healthy", kNow - minutes(1));
  auto d = decide(n);
  CHECK(d.add == Codes{"A050101"});
  CHECK(d.remove.empty());
  CHECK(d.recorded == Codes{"A050101"});
  REQUIRE(d.reasons.size() == 1);
  CHECK(d.reasons[0].second == "GPUHealthy: GPU 1 (GPU-b): volatile uncorrectable ECC errors: 2");
  auto patch = node_health_patch(n.view(), d);
  CHECK(patch["metadata"]["resourceVersion"] == "7");
  CHECK(patch["metadata"]["annotations"]["respool.io/health-taints"] == "A050101");
  CHECK(patch["spec"]["taints"] == nlohmann::json::parse(R"([
    {"key": "respool.io/pool", "value": "gpu-a", "effect": "NoSchedule"},
    {"key": "isolation.respool.io/A050101", "effect": "NoSchedule"}])"));

  // Applied: nothing more to do.
  n.taint("isolation.respool.io/A050101");
  annotate(n, kHealthTaintsAnnotation, "A050101");
  CHECK(node_health_patch(n.view(), decide(n)).is_null());
}

TEST_CASE("H15: back to True removes the taint respool put there, and only that",
          "[policy][health][rule:H15]") {
  auto n = gpu_node();
  n.taint("isolation.respool.io/A050101").taint("isolation.respool.io/A050147");
  annotate(n, kHealthTaintsAnnotation, "A050101");  // A050147 is an administrator's
  condition(n, "GPUHealthy", "True", "Healthy", kNow - minutes(1));
  condition(n, "InfiniBandHealthy", "True", "Healthy", kNow - minutes(1));
  auto d = decide(n);
  CHECK(d.add.empty());
  CHECK(d.remove == Codes{"A050101"});
  CHECK(d.recorded.empty());
  auto patch = node_health_patch(n.view(), d);
  CHECK(patch["metadata"]["annotations"]["respool.io/health-taints"].is_null());
  CHECK(patch["spec"]["taints"] == nlohmann::json::parse(R"([
    {"key": "respool.io/pool", "value": "gpu-a", "effect": "NoSchedule"},
    {"key": "isolation.respool.io/A050147", "effect": "NoSchedule"}])"));
}

TEST_CASE("H15: an administrator's taint of the same code is neither recorded nor removed",
          "[policy][health][rule:H15]") {
  auto n = gpu_node();
  n.taint("isolation.respool.io/A050101");  // put there by hand, before any finding
  condition(n, "GPUHealthy", "False", "A050101", kNow - minutes(1));
  auto d = decide(n);
  CHECK(d.add.empty());
  CHECK(d.recorded.empty());
  CHECK(node_health_patch(n.view(), d).is_null());
  // The finding clears: the administrator's taint stays.
  n.node["status"]["conditions"][1]["status"] = "True";
  d = decide(n);
  CHECK(d.remove.empty());
  CHECK(node_health_patch(n.view(), d).is_null());
}

TEST_CASE(
    "H15: a recorded taint someone removed while the finding holds comes back; a finding "
    "that is not an isolation fault code taints nothing",
    "[policy][health][rule:H15]") {
  auto n = gpu_node();
  annotate(n, kHealthTaintsAnnotation, "A050101");
  condition(n, "GPUHealthy", "False", "A050101", kNow - minutes(1));
  auto d = decide(n);
  CHECK(d.add == Codes{"A050101"});
  CHECK(d.recorded == Codes{"A050101"});
  auto odd = gpu_node();
  condition(odd, "GPUHealthy", "False", "A200008", kNow);  // operational: never from the agent
  condition(odd, "NPUHealthy", "False", "Unknown", kNow);
  CHECK(decide(odd).add.empty());
}

TEST_CASE(
    "F5: fewer allocatable accelerators than the flavor promises taint A050203, not during "
    "admission or a driver upgrade",
    "[policy][health][rule:F5][rule:H15]") {
  auto n = gpu_node();
  n.allocatable("nvidia.com/gpu", "7");
  auto d = decide(n);
  CHECK(d.add == Codes{"A050203"});
  REQUIRE(d.reasons.size() == 1);
  CHECK(d.reasons[0].second == "allocatable nvidia.com/gpu: 7 of 8");
  auto admitting = gpu_node();
  admitting.allocatable("nvidia.com/gpu", "0").taint("isolation.respool.io/A200008");
  CHECK(decide(admitting).add.empty());
  auto upgrading = gpu_node();
  upgrading.allocatable("nvidia.com/gpu", "0").taint("isolation.respool.io/A200001");
  CHECK(decide(upgrading).add.empty());
  // Back to 8: the taint respool put there goes.
  auto healed = gpu_node();
  healed.taint("isolation.respool.io/A050203");
  annotate(healed, kHealthTaintsAnnotation, "A050203");
  CHECK(decide(healed).remove == Codes{"A050203"});
  // A CPU flavor promises nothing.
  NodeBuilder cpu("c-1", "cpu-64c");
  cpu.pool("cpu-a");
  CHECK(decide(cpu).add.empty());
}

TEST_CASE("H16: a stale heartbeat is reported, and neither isolates nor lifts an isolation",
          "[policy][health][rule:H16]") {
  const auto stale_beat = kNow - 3 * kHeartbeat - seconds(1);
  auto n = gpu_node();
  condition(n, "GPUHealthy", "False", "A050101", stale_beat);
  condition(n, "ClockSynchronized", "True", "Healthy", kNow - 3 * kHeartbeat);  // just fresh
  auto d = decide(n);
  CHECK(d.add.empty());
  CHECK(d.stale == Codes{"GPUHealthy"});
  auto patch = node_health_patch(n.view(), d);
  CHECK(patch["metadata"]["annotations"]["respool.io/health-stale"] == "GPUHealthy");
  CHECK_FALSE(patch.contains("spec"));

  // Already isolated by respool: a finding gone stale keeps its taint.
  n.taint("isolation.respool.io/A050101");
  annotate(n, kHealthTaintsAnnotation, "A050101");
  annotate(n, kHealthStaleAnnotation, "GPUHealthy");
  d = decide(n);
  CHECK(d.remove.empty());
  CHECK(d.recorded == Codes{"A050101"});
  CHECK(node_health_patch(n.view(), d).is_null());
  // A stale True does not lift it either.
  n.node["status"]["conditions"][1]["status"] = "True";
  CHECK(decide(n).remove.empty());
}

TEST_CASE("H16: the pool's Degraded message names the nodes whose findings are stale",
          "[policy][health][rule:H16]") {
  const auto catalog = test_catalog();
  auto n = gpu_node();
  annotate(n, kHealthStaleAnnotation, "GPUHealthy");
  PoolNode stale = pool_node(n.view(), catalog, 0);
  CHECK(stale.stale_findings == "GPUHealthy");
  CHECK(stale.state.state == NodeState::Available);  // stale is not abnormal
}
