// Driver upgrades, decided (D1–D4): the per-node state machine in both modes, the skip label,
// failures and retries, retargeting, and the batch arithmetic and slots.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/driver_upgrade.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;
using namespace std::chrono_literals;

namespace {

using US = UpgradeState;

UpgradeNode upgrade_node(std::string name, US state, std::string running = "535",
                         std::string target = "550") {
  UpgradeNode n;
  n.name = std::move(name);
  n.state = state;
  n.running = std::move(running);
  n.target = std::move(target);
  n.since = kT0;
  n.driver_pod = DriverPod{n.name + "-driver", n.running, true, false};
  return n;
}

UpgradeSettings upgrade_settings(UpgradeMode mode, int batch = 1) {
  UpgradeSettings s;
  s.mode = mode;
  s.batch = batch;
  return s;
}

// The one step the plan has for `n`, alone in its pool.
std::optional<UpgradeStep> step_of(const UpgradeNode& n, UpgradeMode mode = UpgradeMode::Secure,
                                   TimePoint now = kT0 + 1min) {
  auto plan = plan_upgrade(std::span(&n, 1), upgrade_settings(mode), now);
  if (plan.steps.empty()) return std::nullopt;
  REQUIRE(plan.steps.size() == 1);
  return plan.steps[0];
}

US next_state(const UpgradeNode& n, UpgradeMode mode = UpgradeMode::Secure,
              TimePoint now = kT0 + 1min) {
  auto s = step_of(n, mode, now);
  return s ? s->to : n.state;
}

}  // namespace

TEST_CASE("D2 batch: a percentage of the pool's nodes rounds up, a quantity as given, omitted all",
          "[policy][driver][rule:D2]") {
  CHECK(batch_size(IntOrPercent{25, true}, 8) == 2);
  CHECK(batch_size(IntOrPercent{25, true}, 9) == 3);
  CHECK(batch_size(IntOrPercent{3, false}, 8) == 3);
  CHECK(batch_size(std::nullopt, 8) == 8);
  CHECK(batch_size(IntOrPercent{1, true}, 8) == 1);  // at least one
  CHECK(batch_size(std::nullopt, 0) == 1);
}

TEST_CASE("state labels round-trip; a label respool never wrote starts the machine over",
          "[policy][driver]") {
  for (US s : {US::Required, US::CordonRequired, US::WaitForJobsRequired, US::PodDeletionRequired,
               US::DriverRestartRequired, US::ValidationRequired, US::UncordonRequired, US::Done,
               US::Failed}) {
    CHECK(parse_upgrade_state(to_string(s)) == s);
  }
  CHECK(parse_upgrade_state("") == US::None);
  CHECK(parse_upgrade_state("half-done") == US::Required);
  CHECK(to_string(US::DriverRestartRequired) == "driver-restart-required");
}

TEST_CASE("Secure: cordon, wait for the jobs, restart the driver, validate, uncordon",
          "[policy][driver][rule:D1][rule:D4]") {
  auto n = upgrade_node("n1", US::None);
  CHECK(next_state(n) == US::Required);
  n.state = US::Required;
  CHECK(next_state(n) == US::CordonRequired);
  n.state = US::CordonRequired;
  CHECK(next_state(n) == US::WaitForJobsRequired);
  n.state = US::WaitForJobsRequired;
  n.jobs = 2;
  CHECK_FALSE(step_of(n));  // D1: the jobs finish first
  n.jobs = 0;
  CHECK(next_state(n) == US::DriverRestartRequired);
  n.state = US::DriverRestartRequired;
  auto restart = step_of(n);
  REQUIRE(restart);
  CHECK(restart->to == US::ValidationRequired);
  CHECK(restart->action == UpgradeAction::DeleteDriverPod);
  n.state = US::ValidationRequired;
  n.driver_pod = DriverPod{"n1-driver-new", "550", false, false};
  CHECK_FALSE(step_of(n));  // not Ready yet
  n.driver_pod->ready = true;
  CHECK_FALSE(step_of(n));  // Ready, but the node's label does not show the target yet
  n.running = "550";
  CHECK(next_state(n) == US::UncordonRequired);
  n.state = US::UncordonRequired;
  CHECK(next_state(n) == US::Done);
  n.state = US::Done;
  CHECK_FALSE(step_of(n));
}

TEST_CASE("Force: the job pods are deleted, nothing waits for them", "[policy][driver][rule:D1]") {
  auto n = upgrade_node("n1", US::CordonRequired);
  n.jobs = 3;
  CHECK(next_state(n, UpgradeMode::Force) == US::PodDeletionRequired);
  n.state = US::PodDeletionRequired;
  auto s = step_of(n, UpgradeMode::Force);
  REQUIRE(s);
  CHECK(s->action == UpgradeAction::DeleteJobPods);
  CHECK(s->to == US::PodDeletionRequired);  // moves on once they are gone
  n.jobs = 0;
  CHECK(next_state(n, UpgradeMode::Force) == US::DriverRestartRequired);
}

TEST_CASE("a restart repeated after a crash does not delete the new driver pod",
          "[policy][driver]") {
  auto n = upgrade_node("n1", US::DriverRestartRequired);
  n.driver_pod = DriverPod{"n1-driver-new", "550", false, false};
  auto s = step_of(n);
  REQUIRE(s);
  CHECK(s->to == US::ValidationRequired);
  CHECK(s->action == UpgradeAction::None);
  n.driver_pod = std::nullopt;  // the old pod gone, the new one not there yet
  CHECK(step_of(n)->action == UpgradeAction::None);
}

TEST_CASE("validation times out into upgrade-failed with its cause; retried by policy",
          "[policy][driver]") {
  auto n = upgrade_node("n1", US::ValidationRequired);
  n.driver_pod = DriverPod{"n1-driver-new", "550", false, false};
  auto plan = plan_upgrade(std::span(&n, 1), upgrade_settings(UpgradeMode::Secure), kT0 + 5min);
  CHECK(plan.steps.empty());
  CHECK(plan.next_check == kT0 + 10min);
  auto s = step_of(n, UpgradeMode::Secure, kT0 + 10min);
  REQUIRE(s);
  CHECK(s->to == US::Failed);
  CHECK(s->reason == "ValidationTimeout");
  CHECK(s->message.find("n1-driver-new (550) not Ready") != std::string::npos);

  n.state = US::Failed;
  n.since = kT0 + 10min;
  CHECK_FALSE(step_of(n, UpgradeMode::Secure, kT0 + 12min));  // the retry interval first
  CHECK(next_state(n, UpgradeMode::Secure, kT0 + 15min) == US::DriverRestartRequired);
  n.attempts = 2;  // retries used up: it stays failed
  CHECK_FALSE(step_of(n, UpgradeMode::Secure, kT0 + 60min));
  n.driver_pod->ready = true;  // recovered by itself
  n.running = "550";
  CHECK(next_state(n, UpgradeMode::Secure, kT0 + 60min) == US::UncordonRequired);
}

TEST_CASE("the skip label leaves a node out", "[policy][driver]") {
  auto n = upgrade_node("n1", US::None);
  n.skip = true;
  CHECK_FALSE(step_of(n));
  n.state = US::Required;
  CHECK(next_state(n) == US::None);
}

TEST_CASE("a version changed mid-upgrade retargets without repeating finished nodes",
          "[policy][driver]") {
  auto done = upgrade_node("n1", US::Done, "600", "600");
  CHECK_FALSE(step_of(done));  // already runs the new target
  auto old_done = upgrade_node("n2", US::Done, "550", "600");
  CHECK(next_state(old_done) == US::Required);
  auto validating = upgrade_node("n3", US::ValidationRequired, "535", "600");
  validating.driver_pod = DriverPod{"n3-driver", "550", true, false};
  CHECK(next_state(validating) == US::DriverRestartRequired);
}

TEST_CASE("slots: the batch less what is in flight and what is unavailable, in one place",
          "[policy][driver][rule:D2]") {
  std::vector<UpgradeNode> nodes;
  for (int i = 0; i < 8; ++i)
    nodes.push_back(upgrade_node("n" + std::to_string(i), US::Required));
  auto plan = plan_upgrade(nodes, upgrade_settings(UpgradeMode::Secure, 2), kT0);
  CHECK(plan.steps.size() == 2);
  CHECK(plan.steps[0].node == "n0");
  CHECK(plan.steps[1].node == "n1");
  CHECK(plan.counts == UpgradeCounts{0, 2, 6, 0});

  // In flight: n0 (validating); unavailable: n5 (NotReady). No slot left for another.
  nodes[0].state = US::ValidationRequired;
  nodes[0].driver_pod = DriverPod{"n0-driver-new", "550", false, false};
  nodes[5].healthy = false;
  plan = plan_upgrade(nodes, upgrade_settings(UpgradeMode::Secure, 2), kT0);
  CHECK(plan.steps.empty());
  CHECK(plan.slots == 0);

  // A node that uncordons this round frees its slot only once that is written.
  nodes[5].healthy = true;
  nodes[0].state = US::UncordonRequired;
  plan = plan_upgrade(nodes, upgrade_settings(UpgradeMode::Secure, 2), kT0);
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].to == US::Done);
  CHECK(plan.steps[1].node == "n1");

  // Held nodes (in a node operation, in admission) are not started; failed ones hold no slot.
  nodes[0].state = US::Failed;
  nodes[0].attempts = 2;
  nodes[1].held = true;
  plan = plan_upgrade(nodes, upgrade_settings(UpgradeMode::Secure, 2), kT0);
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].node == "n2");
  CHECK(plan.steps[1].node == "n3");
  CHECK(plan.counts.failed == 1);
  CHECK(plan.running());
}

TEST_CASE("a pool at the target has nothing to do", "[policy][driver]") {
  std::vector<UpgradeNode> nodes{upgrade_node("a", US::None, "550"),
                                 upgrade_node("b", US::Done, "550")};
  auto plan = plan_upgrade(nodes, upgrade_settings(UpgradeMode::Secure, 1), kT0);
  CHECK(plan.steps.empty());
  CHECK(plan.counts == UpgradeCounts{2, 0, 0, 0});
  CHECK_FALSE(plan.running());
}

TEST_CASE("a node in admission gets the target driver without a slot, then is validated there",
          "[policy][driver][rule:D1][rule:D2]") {
  // Claimed during an upgrade (or readmitted after a reset) with an old driver pod: in admission
  // it is not Available, so its driver pod is restarted at once, taking no slot of the batch.
  UpgradeNode busy = upgrade_node("a", US::WaitForJobsRequired);
  busy.jobs = 1;
  UpgradeNode fresh = upgrade_node("b", US::Required);
  fresh.held = true;
  fresh.admitting = true;
  std::vector<UpgradeNode> pool{busy, fresh};
  auto plan = plan_upgrade(pool, upgrade_settings(UpgradeMode::Secure, 1), kT0 + 1min);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].node == "b");
  CHECK(plan.steps[0].to == US::Required);  // its state waits for validation
  CHECK(plan.steps[0].action == UpgradeAction::DeleteDriverPod);
  CHECK(plan.slots == 0);
  // Its old pod on the way out: nothing more to do.
  fresh.driver_pod->deleting = true;
  CHECK_FALSE(step_of(fresh));
  // The DaemonSet's new pod runs the target and the node's label shows it: validated, done.
  fresh.driver_pod = DriverPod{"b-driver-2", "550", true, false};
  fresh.running = "550";
  CHECK(next_state(fresh) == US::Done);
  // A node that is not in admission waits for a slot instead.
  UpgradeNode member = upgrade_node("c", US::Required);
  member.held = true;
  CHECK_FALSE(step_of(member));
}
