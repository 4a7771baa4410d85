// Pool phase, conditions and counts (P7, P3, P10 NotRunning, F-rules in counts) and P8 events.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/pool_events.hpp"
#include "reconcilers/policy/pool_status.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::kT0;

namespace {

PoolNode node(const std::string& name, const std::string& flavor, NodeState state,
              std::vector<std::string> codes = {}) {
  return {name, flavor, "az-1", {state, std::move(codes)}, 0};
}

// Everything a status derivation needs, with the plan made from the nodes.
struct Scenario {
  std::vector<DesiredGroup> desired{{"gpu-8x-a100", std::nullopt, 2, 50},
                                    {"cpu-64c", std::nullopt, 1, 50}};
  std::vector<PoolNode> nodes;
  std::vector<FreeNode> free;
  std::optional<PoolPhase> previous;
  PoolPlan plan;
  PoolObservation observation;

  PoolStatus derive(const std::vector<Condition>& previous_conditions = {}, TimePoint now = kT0) {
    plan = plan_pool(desired, nodes, free,
                     {.resize_allowed = resize_allowed(previous),
                      .claims_allowed = observation.invalid.empty() &&
                                        !observation.network_problem && !observation.deleting});
    observation.generation = 4;
    observation.previous_phase = previous;
    observation.nodes = nodes;
    observation.plan = &plan;
    return derive_pool_status(observation, previous_conditions, now);
  }
};

const Condition& condition(const PoolStatus& s, const std::string& type) {
  const Condition* c = find_condition(s.conditions, type);
  REQUIRE(c);
  return *c;
}

}  // namespace

TEST_CASE("a new pool is Creating until every desired node is through admission",
          "[policy][status][rule:P7]") {
  Scenario s;
  s.free = {{"f-1", "gpu-8x-a100", "az-1", "1"}, {"f-2", "cpu-64c", "az-1", "2"}};
  PoolStatus status = s.derive();
  CHECK(status.phase == PoolPhase::Creating);
  CHECK(s.plan.claims.size() == 2);
  CHECK(status.nodes.queuing == 1);
  CHECK(status.nodes.creating == 2);
  CHECK(status.nodes.total == 2);
  CHECK(status.resources[0].counts.creating == 1);
  CHECK(status.resources[0].counts.queuing == 1);
  CHECK(condition(status, "Ready").reason == "InsufficientFreeNodes");
  CHECK(condition(status, "Ready").message == "waiting for free nodes: 1 of flavor gpu-8x-a100");
  CHECK(condition(status, "Ready").observed_generation == 4);
  CHECK(condition(status, "Progressing").status == "True");
  CHECK(condition(status, "Progressing").reason == "InsufficientFreeNodes");
  CHECK(condition(status, "Degraded").status == "False");

  // Two claimed and in admission, one still waiting: Creating; one node Available is not enough.
  s.free.clear();
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Creating, {"A200008"}),
             node("c-1", "cpu-64c", NodeState::Creating, {"A200008"})};
  status = s.derive();
  CHECK(status.phase == PoolPhase::Creating);
  CHECK(condition(status, "Ready").status == "False");
  CHECK(condition(status, "Ready").reason == "Creating");
  CHECK(condition(status, "Ready").message == "1 of 3 nodes available, 2 in admission, 0 queuing");
  CHECK(condition(status, "Progressing").reason == "Creating");

  // All Available: Running (P7), Ready.
  s.nodes[1].state = {NodeState::Available, {}};
  s.nodes[2].state = {NodeState::Available, {}};
  status = s.derive();
  CHECK(status.phase == PoolPhase::Running);
  CHECK(condition(status, "Ready").status == "True");
  CHECK(condition(status, "Ready").reason == "Available");
  CHECK(condition(status, "Ready").message == "3 of 3 nodes available");
  CHECK(condition(status, "Progressing").status == "False");
  CHECK(condition(status, "Progressing").reason == "UpToDate");
}

TEST_CASE("creation ends when admissions end, even if some failed", "[policy][status][rule:P7]") {
  Scenario s;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Abnormal, {"A050101"}),
             node("c-1", "cpu-64c", NodeState::Available)};
  PoolStatus status = s.derive();
  CHECK(status.phase == PoolPhase::Running);
  CHECK(condition(status, "Degraded").status == "True");
  // Every node failed: Abnormal, never Running.
  for (auto& n : s.nodes)
    n.state = {NodeState::Abnormal, {"A050202"}};
  CHECK(s.derive().phase == PoolPhase::Abnormal);
}

TEST_CASE("a created pool: Abnormal without available nodes, Degraded while some are abnormal",
          "[policy][status][rule:F1][rule:F2][rule:P7]") {
  Scenario s;
  s.previous = PoolPhase::Running;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Abnormal, {"A050202"}),
             node("c-1", "cpu-64c", NodeState::Abnormal, {"A050101", "A050147"})};
  PoolStatus status = s.derive();
  CHECK(status.phase == PoolPhase::Running);
  CHECK(condition(status, "Ready").status == "True");
  const Condition& degraded = condition(status, "Degraded");
  CHECK(degraded.status == "True");
  CHECK(degraded.reason == "AbnormalNodes");
  CHECK(degraded.message == "2 of 3 nodes are abnormal: g-2 (A050202), c-1 (A050101, A050147)");

  s.nodes[0].state = {NodeState::Abnormal, {"A050203"}};
  status = s.derive();
  CHECK(status.phase == PoolPhase::Abnormal);
  CHECK(condition(status, "Ready").reason == "NoAvailableNodes");
  CHECK(condition(status, "Ready").message == "none of the pool's 3 nodes is available");

  // They heal: back to Running, Degraded False.
  s.previous = PoolPhase::Abnormal;
  for (auto& n : s.nodes)
    n.state = {NodeState::Available, {}};
  status = s.derive();
  CHECK(status.phase == PoolPhase::Running);
  CHECK(condition(status, "Degraded").status == "False");
  CHECK(condition(status, "Degraded").reason == "NoAbnormalNodes");
}

TEST_CASE("F4: operational states are neither available nor abnormal",
          "[policy][status][rule:F4]") {
  Scenario s;
  s.previous = PoolPhase::Running;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Reserved, {"A050801"}),
             node("c-1", "cpu-64c", NodeState::Upgrading, {"A200001"})};
  PoolStatus status = s.derive();
  CHECK(status.nodes == NodeCounts{.total = 3, .available = 1, .upgrading = 1, .reserved = 1});
  CHECK(condition(status, "Degraded").status == "False");
  CHECK(status.phase == PoolPhase::Running);
  s.observation.driver_upgrading = true;
  CHECK(s.derive().phase == PoolPhase::Upgrading);
}

TEST_CASE("a created pool that resizes is Scaling, and NotRunning blocks it",
          "[policy][status][rule:P10]") {
  Scenario s;
  s.previous = PoolPhase::Running;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Available),
             node("c-1", "cpu-64c", NodeState::Available)};
  s.desired[1].count = 2;
  s.free = {{"f-1", "cpu-64c", "az-1", "1"}};
  PoolStatus status = s.derive();
  CHECK(status.phase == PoolPhase::Scaling);
  CHECK(s.plan.claims.size() == 1);
  CHECK(condition(status, "Progressing").status == "True");
  CHECK(condition(status, "Progressing").reason == "Scaling");

  s.previous = PoolPhase::Upgrading;
  s.observation.driver_upgrading = true;
  status = s.derive();
  CHECK(status.phase == PoolPhase::Upgrading);
  CHECK(s.plan.claims.empty());
  CHECK(condition(status, "Progressing").status == "False");
  CHECK(condition(status, "Progressing").reason == "NotRunning");
  CHECK(condition(status, "Progressing").message ==
        "the pool is Upgrading; resizing waits until it is Running (P10)");

  s.previous = PoolPhase::Running;
  s.observation.driver_upgrading = false;
  s.desired[1].count = 1;
  s.nodes.push_back(node("c-2", "cpu-64c", NodeState::Deleting));
  s.observation.scale_in_blocked = "evicting job-7 on c-2 would violate its PodDisruptionBudget";
  status = s.derive();
  CHECK(status.phase == PoolPhase::Scaling);
  CHECK(status.nodes.deleting == 1);
  CHECK(condition(status, "Progressing").reason == "ScaleInBlocked");
  CHECK(condition(status, "Progressing").message ==
        "evicting job-7 on c-2 would violate its PodDisruptionBudget");
}

TEST_CASE("invalid specs and unready networks stop the pool where it is",
          "[policy][status][rule:P3]") {
  Scenario s;
  s.observation.invalid = {{"spec.jobTypes[1]", "P2", "a Logical pool accepts only Training"}};
  s.free = {{"f-1", "cpu-64c", "az-1", "1"}};
  PoolStatus status = s.derive();
  CHECK(status.phase == PoolPhase::Failed);
  CHECK(s.plan.claims.empty());
  CHECK(condition(status, "Ready").reason == "InvalidSpec");
  CHECK(condition(status, "Ready").message ==
        "spec.jobTypes[1]: a Logical pool accepts only Training (P2)");
  CHECK(condition(status, "Progressing").reason == "InvalidSpec");

  s.observation.invalid.clear();
  s.observation.network_problem = "network net-a is not Ready: CIDRConflict";
  status = s.derive();
  CHECK(status.phase == PoolPhase::Creating);
  CHECK(s.plan.claims.empty());
  CHECK(condition(status, "Ready").reason == "NetworkNotReady");
  CHECK(condition(status, "Ready").message == "network net-a is not Ready: CIDRConflict");

  // An existing pool keeps its phase from its nodes.
  s.previous = PoolPhase::Running;
  s.nodes = {node("c-1", "cpu-64c", NodeState::Available)};
  status = s.derive();
  CHECK(status.phase == PoolPhase::Running);
  CHECK(condition(status, "Ready").status == "False");
}

TEST_CASE("a pool being deleted is Deleting", "[policy][status][rule:P14]") {
  Scenario s;
  s.previous = PoolPhase::Running;
  s.observation.deleting = true;
  s.nodes = {node("c-1", "cpu-64c", NodeState::Deleting)};
  PoolStatus status = s.derive();
  CHECK(status.phase == PoolPhase::Deleting);
  CHECK(condition(status, "Ready").message ==
        "the pool is being deleted; 1 node still to release (P14)");
  CHECK(condition(status, "Progressing").reason == "Deleting");
}

TEST_CASE("conditions keep lastTransitionTime while their status holds",
          "[policy][status][conditions]") {
  Scenario s;
  s.previous = PoolPhase::Running;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Available),
             node("c-1", "cpu-64c", NodeState::Available)};
  std::vector<Condition> previous = s.derive().conditions;
  previous.push_back({"DriverUpgrading", "False", "Idle", "", kT0, 4});
  s.nodes[0].state = {NodeState::Abnormal, {"A050202"}};
  PoolStatus later = s.derive(previous, kT0 + std::chrono::minutes{5});
  CHECK(condition(later, "Ready").last_transition == kT0);
  CHECK(condition(later, "Degraded").last_transition == kT0 + std::chrono::minutes{5});
  CHECK(condition(later, "Ready").message == "2 of 3 nodes available");
  // Conditions owned elsewhere are kept.
  CHECK(condition(later, "DriverUpgrading").reason == "Idle");
}

TEST_CASE("status JSON has the API's shape", "[policy][status]") {
  Scenario s;
  s.previous = PoolPhase::Running;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Abnormal, {"A050202"}),
             node("c-1", "cpu-64c", NodeState::Available)};
  PoolStatus status = s.derive();
  status.records = {{Operation::Create,
                     RecordPhase::Succeeded,
                     kT0,
                     kT0 + std::chrono::minutes{9},
                     {"g-1"},
                     "",
                     {}}};
  status.plugins = {
      {JobType::Training, "gpu-a-training-agent", true, {{"cpu", *Quantity::parse("1500m")}}}};
  json out = to_json(status);
  CHECK(out["observedGeneration"] == 4);
  CHECK(out["phase"] == "Running");
  CHECK(out["nodes"] == json::parse(R"({"total": 3, "available": 2, "abnormal": 1, "creating": 0,
    "queuing": 0, "deleting": 0, "upgrading": 0, "reserved": 0, "resetting": 0})"));
  CHECK(out["resources"][0] == json::parse(R"({"flavor": "gpu-8x-a100", "desired": 2, "total": 2,
    "available": 1, "abnormal": 1, "creating": 0, "queuing": 0, "deleting": 0, "upgrading": 0,
    "reserved": 0, "resetting": 0})"));
  CHECK(out["resources"][1]["flavor"] == "cpu-64c");
  CHECK(out["conditions"].size() == 3);
  CHECK(out["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:00:00Z");
  CHECK(out["plugins"][0] == json::parse(R"({"jobType": "Training", "name":
    "gpu-a-training-agent", "ready": true, "requests": {"cpu": "1500m"}})"));
  CHECK(out["records"][0]["operation"] == "Create");
  CHECK_FALSE(out.contains("driver"));
}

TEST_CASE("P8: status change events, exact wording", "[policy][events][rule:P8]") {
  PoolSummary none;
  PoolSummary creating{"Creating", 0, 0, 30, 10, 40};
  auto events = pool_events(none, creating);
  REQUIRE(events.size() == 2);
  CHECK(events[0] ==
        PoolEvent{"Normal", "PoolStatusChange", "Pool status changed, from None to Creating."});
  CHECK(events[1] == PoolEvent{"Normal", "PoolResourcesStatusChange",
                               "Pool resources status changed, available/abnormal/creating/"
                               "queuing count from 0/0/0/0 to 0/0/30/10."});
  PoolSummary running{"Running", 40, 0, 0, 0, 40};
  CHECK(pool_events(creating, running)[0].message ==
        "Pool status changed, from Creating to Running.");
  CHECK(pool_events(running, running).empty());

  struct Case {
    PoolSummary before, after;
    std::vector<std::string> types;
  };
  std::vector<Case> cases{
      // Running → Abnormal, all nodes lost: both Warning.
      {{"Running", 1, 1, 0, 0, 2}, {"Abnormal", 0, 2, 0, 0, 2}, {"Warning", "Warning"}},
      // Healing: Normal.
      {{"Abnormal", 0, 2, 0, 0, 2}, {"Running", 2, 0, 0, 0, 2}, {"Normal", "Normal"}},
      // One more abnormal node, phase unchanged: Warning.
      {{"Running", 2, 0, 0, 0, 2}, {"Running", 1, 1, 0, 0, 2}, {"Warning"}},
      // Scale-in: fewer available nodes but as desired: Normal.
      {{"Scaling", 4, 0, 0, 0, 2}, {"Scaling", 2, 0, 0, 0, 2}, {"Normal"}},
      // A node lost without becoming abnormal (deleted): Warning.
      {{"Running", 2, 0, 0, 0, 2}, {"Running", 1, 0, 0, 0, 2}, {"Warning"}},
      // Creation fails: Failed is worse.
      {{"Creating", 0, 0, 0, 0, 0}, {"Failed", 0, 0, 0, 0, 0}, {"Warning"}},
  };
  for (const Case& c : cases) {
    auto e = pool_events(c.before, c.after);
    std::vector<std::string> types;
    for (const auto& x : e)
      types.push_back(x.type);
    INFO(c.before.phase << " -> " << c.after.phase);
    CHECK(types == c.types);
  }
  CHECK(pool_events({"Running", 1, 1, 0, 0, 2}, {"Running", 2, 0, 0, 0, 2})[0].message ==
        "Pool resources status changed, available/abnormal/creating/queuing count from 1/1/0/0 "
        "to 2/0/0/0.");
}

TEST_CASE("P8: summaries come from the status as stored", "[policy][events][rule:P8]") {
  CHECK(summary_from_status_json(json()) == PoolSummary{});
  CHECK(summary_from_status_json(json::parse(R"({"phase": "Running", "nodes": {"total": 5,
    "available": 3, "abnormal": 1, "creating": 1, "queuing": 2, "deleting": 1}})")) ==
        PoolSummary{"Running", 3, 1, 1, 2, 6});
  Scenario s;
  s.previous = PoolPhase::Running;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available)};
  PoolStatus status = s.derive();
  CHECK(summarize(status) == PoolSummary{"Scaling", 1, 0, 0, 2, 3});
  CHECK(summary_from_status_json(to_json(status)) == summarize(status));
}

TEST_CASE("H16: stale findings are said in the Degraded message, never counted as abnormal",
          "[policy][status][rule:H16]") {
  Scenario s;
  s.previous = PoolPhase::Running;
  s.nodes = {node("g-1", "gpu-8x-a100", NodeState::Available),
             node("g-2", "gpu-8x-a100", NodeState::Available),
             node("c-1", "cpu-64c", NodeState::Available)};
  s.nodes[1].stale_findings = "GPUHealthy,ClockSynchronized";
  PoolStatus status = s.derive();
  CHECK(status.nodes.abnormal == 0);
  const Condition& degraded = condition(status, "Degraded");
  CHECK(degraded.status == "False");
  CHECK(degraded.message ==
        "no node is abnormal; the node agent's findings are stale on g-2 "
        "(GPUHealthy,ClockSynchronized)");
  s.nodes[0].state = {NodeState::Abnormal, {"A050101"}};
  CHECK(condition(s.derive(), "Degraded").message ==
        "1 of 3 nodes are abnormal: g-1 (A050101); the node agent's findings are stale on g-2 "
        "(GPUHealthy,ClockSynchronized)");
}
