// One round of the driver-upgrade controller beyond the plan: where a node stands, what each
// step says in its event and audit line, and when the round looks again (D1–D4).

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/driver_upgrade_round.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;
using namespace std::chrono_literals;

namespace {

UpgradeNode node(std::string name = "gpu-1") {
  UpgradeNode n;
  n.name = std::move(name);
  n.running = "535";
  n.target = "550";
  return n;
}

UpgradeStep step(UpgradeState from, UpgradeState to) {
  UpgradeStep s;
  s.node = "gpu-1";
  s.from = from;
  s.to = to;
  return s;
}

}  // namespace

TEST_CASE("a node's standing in the upgrade comes from its state in the pool",
          "[policy][driver][rule:D4]") {
  auto available = upgrade_standing(NodeState::Available, UpgradeState::None, false);
  CHECK(available.healthy);
  CHECK_FALSE(available.held);
  CHECK_FALSE(available.admitting);
  // An abnormal node is unhealthy (it takes a slot), unless its own upgrade failed.
  CHECK_FALSE(upgrade_standing(NodeState::Abnormal, UpgradeState::None, false).healthy);
  CHECK(upgrade_standing(NodeState::Abnormal, UpgradeState::Failed, false).healthy);
  // Nodes in admission, being released or reset, or in a NodeOperation start no upgrade now.
  auto admitting = upgrade_standing(NodeState::Creating, UpgradeState::None, false);
  CHECK(admitting.held);
  CHECK(admitting.admitting);
  CHECK(upgrade_standing(NodeState::Deleting, UpgradeState::None, false).held);
  CHECK(upgrade_standing(NodeState::Resetting, UpgradeState::None, false).held);
  CHECK(upgrade_standing(NodeState::Available, UpgradeState::None, true).held);
  CHECK_FALSE(upgrade_standing(NodeState::Upgrading, UpgradeState::CordonRequired, false).held);
}

TEST_CASE("a step's event and audit line", "[policy][driver][rule:D1]") {
  auto started = step_report(step(UpgradeState::Required, UpgradeState::CordonRequired), node(),
                             "GPU", UpgradeMode::Secure);
  REQUIRE(started);
  CHECK_FALSE(started->warning);
  CHECK(started->reason == "DriverUpgradeStarted");
  CHECK(started->message == "upgrading the GPU driver of node gpu-1 from 535 to 550 (Secure)");
  CHECK(started->audit == "driver upgrade started: " + started->message);

  auto done = step_report(step(UpgradeState::UncordonRequired, UpgradeState::Done), node(), "NPU",
                          UpgradeMode::Force);
  REQUIRE(done);
  CHECK(done->reason == "DriverUpgraded");
  CHECK(done->message == "node gpu-1 runs the NPU driver 550");

  auto failing = step(UpgradeState::ValidationRequired, UpgradeState::Failed);
  failing.reason = "ValidationTimeout";
  failing.message = "the driver pod was not ready within 10m";
  auto failed = step_report(failing, node(), "GPU", UpgradeMode::Secure);
  REQUIRE(failed);
  CHECK(failed->warning);
  CHECK(failed->result == AuditResult::Failure);
  CHECK(failed->message ==
        "node gpu-1: ValidationTimeout: the driver pod was not ready within 10m");

  auto retried_node = node();
  retried_node.attempts = 1;
  auto retried = step_report(step(UpgradeState::Failed, UpgradeState::DriverRestartRequired),
                             retried_node, "GPU", UpgradeMode::Secure);
  REQUIRE(retried);
  CHECK(retried->message == "node gpu-1: restarting the GPU driver 550 again (attempt 3)");
  CHECK_FALSE(retried->audit);

  CHECK_FALSE(step_report(step(UpgradeState::CordonRequired, UpgradeState::WaitForJobsRequired),
                          node(), "GPU", UpgradeMode::Secure));
  CHECK_FALSE(step_report(step(UpgradeState::CordonRequired, UpgradeState::CordonRequired), node(),
                          "GPU", UpgradeMode::Secure));
}

TEST_CASE("a step's audit key tells a retry of the same step from the next one",
          "[policy][driver][rule:D1]") {
  auto n = node();
  const auto a = step_audit_key(step(UpgradeState::Required, UpgradeState::CordonRequired), n);
  CHECK(a == step_audit_key(step(UpgradeState::Required, UpgradeState::CordonRequired), n));
  CHECK(a != step_audit_key(step(UpgradeState::UncordonRequired, UpgradeState::Done), n));
  n.attempts = 1;
  CHECK(a != step_audit_key(step(UpgradeState::Required, UpgradeState::CordonRequired), n));
}

TEST_CASE("the next round: soon after a write, every 10 s while running, at the plan's timeout",
          "[policy][driver][rule:D2]") {
  UpgradePlan idle;
  CHECK_FALSE(next_upgrade_round(idle, false, kT0));
  CHECK(next_upgrade_round(idle, true, kT0) == 500ms);
  UpgradePlan running;
  running.counts.pending = 1;
  CHECK(next_upgrade_round(running, false, kT0) == 10s);
  running.next_check = kT0 + 3s;
  CHECK(next_upgrade_round(running, false, kT0) == 3s);
  running.next_check = kT0 - 1s;  // overdue: at once, but not in a busy loop
  CHECK(next_upgrade_round(running, false, kT0) == 100ms);
}
