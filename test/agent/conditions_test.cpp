// H14: the agent's conditions on its Node: what a period's findings write, and when nothing.

#include <catch2/catch.hpp>

#include "agent/report/conditions.hpp"
#include "fixtures.hpp"
#include "operator/kube/time.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using std::chrono::minutes;
using std::chrono::seconds;

namespace {

const seconds kHeartbeat{300};

FamilyResult healthy(Family f) {
  FamilyResult r;
  r.family = f;
  return r;
}

FamilyResult faulty(Family f, std::string code, std::string device, std::string message) {
  auto r = healthy(f);
  r.faults.push_back({std::move(code), std::move(device), std::move(message)});
  return r;
}

// What the Node shows after a plan was written.
std::vector<NodeCondition> after(const std::vector<NodeCondition>& before,
                                 const ConditionPlan& plan) {
  auto out = before;
  for (const auto& w : plan.written) {
    std::erase_if(out, [&](const NodeCondition& c) { return c.type == w.type; });
    out.push_back(w);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "H14: the first period writes a condition per family that applies; the next writes "
    "nothing",
    "[agent][report][rule:H14]") {
  auto gpu =
      faulty(Family::Gpu, "A050101", "GPU 1 (GPU-b)", "volatile uncorrectable ECC errors: 2");
  auto npu = healthy(Family::Npu);
  npu.applies = false;  // no NPU here
  std::vector<FamilyResult> results{gpu, npu, healthy(Family::Clock)};
  auto plan = plan_conditions({}, results, kT0, kHeartbeat);
  REQUIRE_FALSE(plan.patch.is_null());
  CHECK_FALSE(plan.heartbeat_only);
  auto conditions = plan.patch["status"]["conditions"];
  REQUIRE(conditions.size() == 2);
  CHECK(conditions[0] ==
        nlohmann::json{{"type", "GPUHealthy"},
                       {"status", "False"},
                       {"reason", "A050101"},
                       {"message", "GPU 1 (GPU-b): volatile uncorrectable ECC errors: 2"},
                       {"lastHeartbeatTime", "2026-01-01T00:00:00Z"},
                       {"lastTransitionTime", "2026-01-01T00:00:00Z"}});
  CHECK(conditions[1]["type"] == "ClockSynchronized");
  CHECK(conditions[1]["status"] == "True");
  REQUIRE(plan.transitions.size() == 2);
  CHECK(plan.transitions[0].from.empty());

  auto shown = after({}, plan);
  auto next = plan_conditions(shown, results, kT0 + seconds(30), kHeartbeat);
  CHECK(next.patch.is_null());
  CHECK(next.transitions.empty());
}

TEST_CASE("H14: a heartbeat at most once a heartbeat period, renewing every condition",
          "[agent][report][rule:H14]") {
  std::vector<FamilyResult> results{healthy(Family::Gpu), healthy(Family::Clock)};
  auto shown = after({}, plan_conditions({}, results, kT0, kHeartbeat));
  int writes = 0;
  // An hour of 30-second periods: 12 heartbeats, and nothing else.
  for (auto t = kT0 + seconds(30); t <= kT0 + minutes(60); t += seconds(30)) {
    auto plan = plan_conditions(shown, results, t, kHeartbeat);
    if (plan.patch.is_null()) continue;
    ++writes;
    CHECK(plan.heartbeat_only);
    CHECK(plan.transitions.empty());
    for (const auto& c : plan.written) {
      CHECK(c.last_heartbeat == t);
      CHECK(c.last_transition == kT0);  // status unchanged: the transition time stays
    }
    shown = after(shown, plan);
  }
  CHECK(writes == 12);
}

TEST_CASE("H14: a fault found and cleared are transitions; a new message is a write without one",
          "[agent][report][rule:H14]") {
  auto shown = after({}, plan_conditions({}, {healthy(Family::Gpu)}, kT0, kHeartbeat));
  auto t1 = kT0 + seconds(30);
  auto fault = plan_conditions(
      shown,
      {faulty(Family::Gpu, "A050101", "GPU 0 (GPU-0)", "volatile uncorrectable ECC errors: 1")}, t1,
      kHeartbeat);
  REQUIRE(fault.transitions.size() == 1);
  CHECK(fault.transitions[0].from == "True");
  CHECK(fault.transitions[0].to.status == "False");
  CHECK(fault.written[0].last_transition == t1);
  shown = after(shown, fault);

  auto t2 = t1 + seconds(30);
  auto more = plan_conditions(
      shown,
      {faulty(Family::Gpu, "A050101", "GPU 0 (GPU-0)", "volatile uncorrectable ECC errors: 3")}, t2,
      kHeartbeat);
  REQUIRE_FALSE(more.patch.is_null());
  CHECK(more.transitions.empty());
  CHECK(more.written[0].last_transition == t1);
  shown = after(shown, more);

  auto cleared = plan_conditions(shown, {healthy(Family::Gpu)}, t2 + seconds(30), kHeartbeat);
  REQUIRE(cleared.transitions.size() == 1);
  CHECK(cleared.transitions[0].from == "False");
  CHECK(cleared.written[0].status == "True");
  CHECK(cleared.written[0].reason == "Healthy");
}

TEST_CASE("H14: a check that could not read writes nothing and renews no heartbeat",
          "[agent][report][rule:H14]") {
  auto shown = after({}, plan_conditions({}, {faulty(Family::Gpu, "A050104", "GPU 0", "retired")},
                                         kT0, kHeartbeat));
  FamilyResult unread = healthy(Family::Gpu);
  unread.conclusive = false;
  unread.failures.push_back({"nvmlDeviceGetCount_v2", "Unknown Error"});
  auto plan = plan_conditions(shown, {unread}, kT0 + minutes(10), kHeartbeat);
  CHECK(plan.patch.is_null());
  // With another family due for its heartbeat, the unread one is left out of the patch.
  auto both =
      plan_conditions(shown, {unread, healthy(Family::Clock)}, kT0 + minutes(10), kHeartbeat);
  REQUIRE(both.written.size() == 1);
  CHECK(both.written[0].type == "ClockSynchronized");
}

TEST_CASE("H14: several faults: the first's code is the reason, every device in the message",
          "[agent][report][rule:H14]") {
  FamilyResult gpu = healthy(Family::Gpu);
  gpu.faults = {{"A050101", "GPU 0 (GPU-0)", "volatile uncorrectable ECC errors: 1"},
                {"A050104", "GPU 3 (GPU-3)", "retired pages: 65"}};
  auto c = desired_condition(gpu, kT0);
  REQUIRE(c);
  CHECK(c->reason == "A050101");
  CHECK(c->message ==
        "GPU 0 (GPU-0): volatile uncorrectable ECC errors: 1; GPU 3 (GPU-3): retired pages: 65 "
        "(A050104)");
}

TEST_CASE("H14: the Node's own conditions are read back, the kubelet's ignored",
          "[agent][report][rule:H14]") {
  auto node = nlohmann::json::parse(R"({"status": {"conditions": [
    {"type": "Ready", "status": "True"},
    {"type": "GPUHealthy", "status": "False", "reason": "A050101", "message": "m",
     "lastHeartbeatTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2025-12-31T23:00:00Z"}]}})");
  auto conditions = agent_conditions(node);
  REQUIRE(conditions.size() == 1);
  CHECK(conditions[0].type == "GPUHealthy");
  CHECK(conditions[0].last_heartbeat == kT0);
  CHECK(conditions[0].last_transition == kT0 - std::chrono::hours(1));
}
