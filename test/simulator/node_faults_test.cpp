#include <catch2/catch.hpp>

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/node_faults.hpp"
#include "sandbox/simulator/node_set.hpp"
#include "sandbox/simulator/node_taints.hpp"

using namespace respool::sandbox;
using respool::kube::ConditionStatus;
using Json = nlohmann::json;

namespace {

const auto kNow = std::chrono::system_clock::time_point{std::chrono::seconds{1'767'225'600}};

Json gpu_node() {
  NodeInventory inventory;
  NodeSetSpec set;
  set.flavor = "gpu";
  set.capacity = {{"nvidia.com/gpu", "8"}};
  return sim::node_objects(inventory, set, kNow).at(0);
}

Json with_fault(Json node, const std::string& fault) {
  if (fault.empty()) {
    node["metadata"]["annotations"].erase(sim::kFaultAnnotation);
  } else {
    node["metadata"]["annotations"][sim::kFaultAnnotation] = fault;
  }
  return node;
}

// What the API server holds after the simulator's writes: its plan, conditions and taints.
Json settle(Json node, std::chrono::system_clock::time_point now = kNow) {
  for (int i = 0; i < 3; ++i) {
    node = sim::apply_faults(node, now);
    sim::mirror_condition_taints(node, now);
  }
  return node;
}

bool has_taint(const Json& node, const std::string& key, const std::string& effect) {
  for (const auto& t : sim::node_taints(node))
    if (t.key == key && t.effect == effect) return true;
  return false;
}

}  // namespace

TEST_CASE("the fault annotation lists faults, comma-separated", "[simulator]") {
  auto parsed = parse_faults(" NotReady, Isolate=A050101 ,AcceleratorLoss=2,Isolate=A050102");
  CHECK(parsed.errors.empty());
  CHECK(parsed.faults.not_ready);
  CHECK_FALSE(parsed.faults.unreachable);
  CHECK(parsed.faults.isolation_codes == std::vector<std::string>{"A050101", "A050102"});
  CHECK(parsed.faults.accelerator_loss == 2);
  CHECK(format_faults(parsed.faults) ==
        "NotReady,Isolate=A050101,Isolate=A050102,AcceleratorLoss=2");
  CHECK(parse_faults(format_faults(parsed.faults)).faults == parsed.faults);

  auto bad = parse_faults("Sleepy,Isolate=,AcceleratorLoss=x,Unreachable");
  CHECK(bad.errors.size() == 3);
  CHECK(bad.faults.unreachable);
  CHECK(parse_faults("").faults.empty());
}

TEST_CASE("NotReady sets Ready=False and the lifecycle taints; healing clears them",
          "[simulator][rule:F2]") {
  Json node = settle(with_fault(gpu_node(), "NotReady"));
  CHECK(sim::condition_status(node, "Ready") == ConditionStatus::False);
  CHECK(sim::find_condition(node, "Ready")->value("reason", "") == "KubeletNotReady");
  CHECK(has_taint(node, sim::kTaintNotReady, "NoExecute"));
  CHECK(has_taint(node, sim::kTaintNotReady, "NoSchedule"));
  CHECK(sim::annotation(node, sim::kFaultAppliedAnnotation));

  Json healed = settle(with_fault(node, ""));
  CHECK(sim::condition_status(healed, "Ready") == ConditionStatus::True);
  CHECK(sim::node_taints(healed).empty());
  CHECK_FALSE(sim::annotation(healed, sim::kFaultAppliedAnnotation));
}

TEST_CASE("Unreachable sets the conditions Unknown and the unreachable taints",
          "[simulator][rule:F2]") {
  Json node = settle(with_fault(gpu_node(), "Unreachable"));
  CHECK(sim::condition_status(node, "Ready") == ConditionStatus::Unknown);
  CHECK(sim::find_condition(node, "Ready")->value("reason", "") == "NodeStatusUnknown");
  CHECK(sim::condition_status(node, "MemoryPressure") == ConditionStatus::Unknown);
  CHECK(has_taint(node, sim::kTaintUnreachable, "NoExecute"));
  CHECK_FALSE(has_taint(node, sim::kTaintNotReady, "NoExecute"));
  Json healed = settle(with_fault(node, ""));
  CHECK(sim::condition_status(healed, "Ready") == ConditionStatus::True);
  CHECK(sim::condition_status(healed, "MemoryPressure") == ConditionStatus::False);
  CHECK(sim::node_taints(healed).empty());
}

TEST_CASE("Isolate taints the node with the code; healing removes only the simulator's taint",
          "[simulator][rule:F1]") {
  Json node = gpu_node();
  node["spec"]["taints"] =
      Json::array({{{"key", "isolation.respool.io/A200008"}, {"effect", "NoSchedule"}},
                   {{"key", "respool.io/pool"}, {"value", "a"}, {"effect", "NoSchedule"}}});
  node = settle(with_fault(node, "Isolate=A050101,Isolate=A200008"));
  CHECK(has_taint(node, "isolation.respool.io/A050101", "NoSchedule"));
  CHECK(sim::node_taints(node).size() == 3);
  Json healed = settle(with_fault(node, ""));
  // A200008 was there before the fault (the operator's): it stays.
  CHECK_FALSE(has_taint(healed, "isolation.respool.io/A050101", "NoSchedule"));
  CHECK(has_taint(healed, "isolation.respool.io/A200008", "NoSchedule"));
  CHECK(has_taint(healed, "respool.io/pool", "NoSchedule"));
}

TEST_CASE("AcceleratorLoss lowers allocatable below capacity until healed",
          "[simulator][rule:F5]") {
  Json node = settle(with_fault(gpu_node(), "AcceleratorLoss=3"));
  CHECK(node["status"]["allocatable"]["nvidia.com/gpu"] == "5");
  CHECK(node["status"]["capacity"]["nvidia.com/gpu"] == "8");
  // A changed count starts from the original, not from the reduced value.
  node = settle(with_fault(node, "AcceleratorLoss=10"));
  CHECK(node["status"]["allocatable"]["nvidia.com/gpu"] == "0");
  Json healed = settle(with_fault(node, ""));
  CHECK(healed["status"]["allocatable"]["nvidia.com/gpu"] == "8");
  CHECK_FALSE(sim::annotation(healed, sim::kFaultAppliedAnnotation));
}

TEST_CASE("healing is recorded until the server shows it", "[simulator]") {
  Json faulty = settle(with_fault(gpu_node(), "NotReady,AcceleratorLoss=1"));
  // One pass of healing restores the status but keeps the record: if that status write were
  // lost, the next pass must restore it again.
  Json once = sim::apply_faults(with_fault(faulty, ""), kNow);
  CHECK(sim::condition_status(once, "Ready") == ConditionStatus::True);
  CHECK(once["status"]["allocatable"]["nvidia.com/gpu"] == "8");
  CHECK(sim::annotation(once, sim::kFaultAppliedAnnotation));
  Json status_lost = with_fault(faulty, "");
  status_lost["metadata"] = once["metadata"];
  Json again = sim::apply_faults(status_lost, kNow);
  CHECK(sim::condition_status(again, "Ready") == ConditionStatus::True);
  CHECK(again["status"]["allocatable"]["nvidia.com/gpu"] == "8");
}

TEST_CASE("a node without faults is left exactly as it is", "[simulator]") {
  Json node = gpu_node();
  CHECK(sim::apply_faults(node, kNow) == node);
  Json bare = {{"metadata", {{"name", "hand-made"}}}};
  CHECK(sim::apply_faults(bare, kNow) == bare);
  Json copy = node;
  CHECK_FALSE(sim::mirror_condition_taints(copy, kNow));
}

TEST_CASE("lifecycle taints follow conditions and cordoning", "[simulator]") {
  Json node = gpu_node();
  node["spec"]["unschedulable"] = true;
  node["status"]["conditions"][1]["status"] = "True";  // DiskPressure
  node["spec"]["taints"] = Json::array({{{"key", sim::kTaintNotReady}, {"effect", "NoSchedule"}}});
  CHECK(sim::mirror_condition_taints(node, kNow));
  CHECK(has_taint(node, sim::kTaintUnschedulable, "NoSchedule"));
  CHECK(has_taint(node, sim::kTaintDiskPressure, "NoSchedule"));
  CHECK_FALSE(has_taint(node, sim::kTaintNotReady, "NoSchedule"));  // Ready is True
  CHECK_FALSE(sim::mirror_condition_taints(node, kNow));            // in step: nothing to do
}
