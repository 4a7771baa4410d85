// The creation and resize plan: claims under the P6 window, zones (P4), queuing, scale-in (P10).

#include <algorithm>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/pool_plan.hpp"

using namespace respool::policy;
using nlohmann::json;

namespace {

std::vector<FreeNode> free_nodes(const std::string& flavor, const std::string& zone, int n,
                                 const std::string& prefix) {
  std::vector<FreeNode> out;
  for (int i = 0; i < n; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "%s%03d", prefix.c_str(), i);
    out.push_back({name, flavor, zone, "rv-" + std::to_string(i)});
  }
  return out;
}

PoolNode node(const std::string& name, const std::string& flavor, const std::string& zone,
              NodeState state, int jobs = 0) {
  return {name, flavor, zone, {state, {}}, jobs};
}

std::vector<std::string> claimed(const PoolPlan& plan) {
  std::vector<std::string> out;
  for (const Claim& c : plan.claims)
    out.push_back(c.node);
  return out;
}

const std::vector<DesiredGroup> kForty{{"gpu-8x-a100", std::nullopt, 40, 50}};

}  // namespace

TEST_CASE("desired groups follow the spec, zones in order", "[policy][plan][rule:P4]") {
  ResourcePoolSpec spec;
  spec.resources = {{"gpu-8x-a100", 8, {{"az-1", 5}, {"az-2", 3}}, 100}, {"cpu-64c", 2, {}, 50}};
  auto groups = desired_groups(spec);
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].zone == "az-1");
  CHECK(groups[0].count == 5);
  CHECK(groups[0].container_engine_space_gib == 100);
  CHECK(groups[1].zone == "az-2");
  CHECK(groups[2].zone == std::nullopt);
  CHECK(groups[2].count == 2);
}

TEST_CASE("P6: at most 30 nodes between claim and end of admission, sliding",
          "[policy][plan][rule:P6]") {
  // 40 desired, 50 free: simulate reconciles in which admissions finish a few at a time, and
  // check at every step that claimed-but-unadmitted nodes never exceed 30.
  std::vector<FreeNode> free = free_nodes("gpu-8x-a100", "az-1", 50, "f-");
  std::vector<PoolNode> pool;
  int max_in_window = 0;
  std::vector<int> claims_per_round;
  for (int round = 0; round < 20; ++round) {
    PoolPlan plan = plan_pool(kForty, pool, free);
    claims_per_round.push_back(int(plan.claims.size()));
    for (const Claim& c : plan.claims) {
      pool.push_back(node(c.node, c.flavor, c.zone, NodeState::Creating));
      std::erase_if(free, [&](const FreeNode& f) { return f.name == c.node; });
    }
    int in_window = int(std::count_if(pool.begin(), pool.end(), [](const PoolNode& n) {
      return n.state.state == NodeState::Creating;
    }));
    max_in_window = std::max(max_in_window, in_window);
    CHECK(in_window <= 30);
    // Four admissions end per round: three Available, one failed (Abnormal).
    int finished = 0;
    for (PoolNode& n : pool) {
      if (n.state.state != NodeState::Creating || finished == 4) continue;
      n.state.state = finished++ == 3 ? NodeState::Abnormal : NodeState::Available;
    }
  }
  CHECK(max_in_window == 30);
  // 30 at once, then one claim per finished admission until 40 are claimed.
  CHECK(claims_per_round ==
        std::vector<int>{30, 4, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(pool.size() == 40);
}

TEST_CASE("P6: the first plan of a 40-node pool claims 30 and queues 10",
          "[policy][plan][rule:P6]") {
  auto free = free_nodes("gpu-8x-a100", "az-1", 45, "f-");
  PoolPlan plan = plan_pool(kForty, {}, free);
  REQUIRE(plan.claims.size() == 30);
  CHECK(plan.claims.front().node == "f-000");
  CHECK(plan.claims.front().resource_version == "rv-0");
  CHECK(plan.claims.back().node == "f-029");
  CHECK(plan.claims.front().container_engine_space_gib == 50);
  CHECK(plan.queuing() == 10);
  CHECK(plan.missing() == 0);
  CHECK(plan.missing_message().empty());
  CHECK_FALSE(plan.settled());
  // Nodes already in admission hold the window.
  std::vector<PoolNode> pool;
  for (int i = 0; i < 28; ++i) {
    pool.push_back(node("p-" + std::to_string(i), "gpu-8x-a100", "az-1", NodeState::Creating));
  }
  plan = plan_pool(kForty, pool, free);
  CHECK(plan.in_admission == 28);
  CHECK(plan.claims.size() == 2);
  CHECK(plan.queuing() == 10);
  // A smaller window (configurable).
  CHECK(plan_pool(kForty, {}, free, {.window = 5}).claims.size() == 5);
}

TEST_CASE("P6: the window is shared by the flavors of a pool, round-robin",
          "[policy][plan][rule:P6]") {
  std::vector<DesiredGroup> desired{{"gpu-8x-a100", std::nullopt, 40, 50},
                                    {"cpu-64c", std::nullopt, 4, 50}};
  auto free = free_nodes("gpu-8x-a100", "az-1", 40, "g-");
  auto cpus = free_nodes("cpu-64c", "az-1", 4, "c-");
  free.insert(free.end(), cpus.begin(), cpus.end());
  PoolPlan plan = plan_pool(desired, {}, free);
  CHECK(plan.claims.size() == 30);
  CHECK(plan.groups[0].claimed == 26);
  CHECK(plan.groups[1].claimed == 4);
  CHECK(claimed(plan)[0] == "g-000");
  CHECK(claimed(plan)[1] == "c-000");
}

TEST_CASE("P4: zones are respected; missing nodes are named by flavor and zone",
          "[policy][plan][rule:P4]") {
  std::vector<DesiredGroup> desired{{"gpu-8x-a100", "az-1", 4, 50},
                                    {"gpu-8x-a100", "az-2", 4, 50},
                                    {"cpu-64c", std::nullopt, 3, 80}};
  std::vector<FreeNode> free = free_nodes("gpu-8x-a100", "az-1", 6, "a-");
  auto az2 = free_nodes("gpu-8x-a100", "az-2", 1, "b-");
  auto az3 = free_nodes("gpu-8x-a100", "az-3", 5, "z-");
  auto cpu = free_nodes("cpu-64c", "az-9", 2, "c-");
  for (auto* more : {&az2, &az3, &cpu})
    free.insert(free.end(), more->begin(), more->end());
  PoolPlan plan = plan_pool(desired, {}, free);
  CHECK(claimed(plan) ==
        std::vector<std::string>{"a-000", "b-000", "c-000", "a-001", "c-001", "a-002", "a-003"});
  CHECK(plan.claims[2].container_engine_space_gib == 80);
  CHECK(plan.claims[2].zone == "az-9");
  CHECK(plan.groups[0].queuing == 0);
  CHECK(plan.groups[1].queuing == 3);
  CHECK(plan.groups[1].missing == 3);
  CHECK(plan.groups[2].missing == 1);
  CHECK(plan.queuing() == 4);
  CHECK(plan.missing() == 4);
  CHECK(plan.missing_message() == "3 of flavor gpu-8x-a100 in zone az-2, 1 of flavor cpu-64c");
}

TEST_CASE("N9: only free nodes of the group's flavor are claimed", "[policy][plan][rule:N9]") {
  std::vector<DesiredGroup> desired{{"cpu-64c", std::nullopt, 2, 50}};
  auto free = free_nodes("gpu-8x-a100", "az-1", 5, "g-");
  PoolPlan plan = plan_pool(desired, {}, free);
  CHECK(plan.claims.empty());
  CHECK(plan.missing_message() == "2 of flavor cpu-64c");
}

TEST_CASE("nothing is claimed while claims are not allowed", "[policy][plan]") {
  auto free = free_nodes("gpu-8x-a100", "az-1", 45, "f-");
  PoolPlan plan = plan_pool(kForty, {}, free, {.claims_allowed = false});
  CHECK(plan.claims.empty());
  CHECK(plan.queuing() == 40);
  CHECK_FALSE(plan.resize_blocked);
}

TEST_CASE("a pool with its nodes is settled", "[policy][plan][rule:P7]") {
  std::vector<DesiredGroup> desired{{"cpu-64c", std::nullopt, 2, 50}};
  std::vector<PoolNode> pool{node("c-1", "cpu-64c", "az-1", NodeState::Available),
                             node("c-2", "cpu-64c", "az-1", NodeState::Abnormal)};
  PoolPlan plan = plan_pool(desired, pool, free_nodes("cpu-64c", "az-1", 3, "f-"));
  CHECK(plan.claims.empty());
  CHECK(plan.releases.empty());
  CHECK(plan.settled());
}

TEST_CASE("P10: scale-in takes idle nodes first, then the fewest jobs",
          "[policy][plan][rule:P10]") {
  std::vector<DesiredGroup> desired{{"gpu-8x-a100", std::nullopt, 3, 50}};
  std::vector<PoolNode> pool{
      node("n-1", "gpu-8x-a100", "az-1", NodeState::Available, 2),
      node("n-2", "gpu-8x-a100", "az-1", NodeState::Available, 0),
      node("n-3", "gpu-8x-a100", "az-1", NodeState::Available, 1),
      node("n-4", "gpu-8x-a100", "az-1", NodeState::Available, 5),
      node("n-5", "gpu-8x-a100", "az-1", NodeState::Abnormal, 1),
      node("n-6", "gpu-8x-a100", "az-1", NodeState::Available, 0),
      node("n-7", "gpu-8x-a100", "az-1", NodeState::Deleting, 0),
  };
  PoolPlan plan = plan_pool(desired, pool, {});
  // 6 counted (n-7 is already leaving, and its drain goes on first), 3 wanted: idle n-2 and
  // n-6, then the abnormal node with one job before the available one with one job.
  CHECK(plan.releases == std::vector<std::string>{"n-7", "n-2", "n-6", "n-5"});
  CHECK(plan.groups[0].surplus == 3);
  CHECK(plan.claims.empty());
}

TEST_CASE("P10: scale-in only touches the flavors being reduced", "[policy][plan][rule:P10]") {
  std::vector<DesiredGroup> desired{{"gpu-8x-a100", "az-1", 1, 50},
                                    {"gpu-8x-a100", "az-2", 2, 50},
                                    {"cpu-64c", std::nullopt, 1, 50}};
  std::vector<PoolNode> pool{
      node("a-1", "gpu-8x-a100", "az-1", NodeState::Available, 3),
      node("a-2", "gpu-8x-a100", "az-1", NodeState::Available, 4),
      node("b-1", "gpu-8x-a100", "az-2", NodeState::Available, 0),
      node("b-2", "gpu-8x-a100", "az-2", NodeState::Available, 0),
      node("c-1", "cpu-64c", "az-2", NodeState::Available, 0),
      node("z-1", "gpu-8x-a100", "az-3", NodeState::Available, 9),
  };
  PoolPlan plan = plan_pool(desired, pool, {});
  // z-1 is in a zone the pool no longer pins; a-1 has fewer jobs than a-2.
  CHECK(plan.releases == std::vector<std::string>{"z-1", "a-1"});
}

TEST_CASE("P10: resizing waits while the pool may not resize", "[policy][plan][rule:P10]") {
  std::vector<DesiredGroup> desired{{"cpu-64c", std::nullopt, 3, 50}};
  std::vector<PoolNode> pool{node("c-1", "cpu-64c", "az-1", NodeState::Abnormal),
                             node("c-2", "cpu-64c", "az-1", NodeState::Abnormal)};
  auto free = free_nodes("cpu-64c", "az-1", 3, "f-");
  PoolPlan plan = plan_pool(desired, pool, free, {.resize_allowed = false});
  CHECK(plan.resize_blocked);
  CHECK(plan.claims.empty());
  CHECK(plan.queuing() == 1);
  // Once allowed, it proceeds.
  plan = plan_pool(desired, pool, free, {.resize_allowed = true});
  CHECK_FALSE(plan.resize_blocked);
  CHECK(claimed(plan) == std::vector<std::string>{"f-000"});
  // Nothing to resize: nothing blocked.
  desired[0].count = 2;
  CHECK_FALSE(plan_pool(desired, pool, free, {.resize_allowed = false}).resize_blocked);
}

TEST_CASE("P10: flavors are neither removed nor added by a resize", "[policy][plan][rule:P10]") {
  ResourcePoolSpec spec;
  spec.resources = {{"gpu-8x-a100", 2, {}, 50}, {"npu-8x-910b", 1, {}, 50}};
  std::vector<std::string> has{"gpu-8x-a100", "cpu-64c"};
  auto violations = resize_violations(spec, has);
  REQUIRE(violations.size() == 2);
  CHECK(violations[0].to_string() ==
        "spec.resources: flavor cpu-64c cannot be removed: no flavor of a pool goes to 0 (P10)");
  CHECK(violations[1].to_string() ==
        "spec.resources[1].flavor: flavor npu-8x-910b is new: a resize adds or removes nodes of "
        "the flavors the pool has (P10)");
  CHECK(resize_violations(spec, std::vector<std::string>{"gpu-8x-a100", "npu-8x-910b"}).empty());
  CHECK(status_flavors(json::parse(R"({"resources": [{"flavor": "a"}, {"flavor": "b"}]})")) ==
        std::vector<std::string>{"a", "b"});
  CHECK(status_flavors(json::object()).empty());
}
