#include "reconcilers/policy/driver_upgrade_round.hpp"

#include <algorithm>

namespace respool::policy {

UpgradeStanding upgrade_standing(NodeState pool_state, UpgradeState upgrade,
                                 bool in_node_operation) {
  UpgradeStanding out;
  out.healthy = pool_state != NodeState::Abnormal || upgrade == UpgradeState::Failed;
  out.held = in_node_operation || pool_state == NodeState::Creating ||
             pool_state == NodeState::Deleting || pool_state == NodeState::Resetting;
  out.admitting = pool_state == NodeState::Creating;
  return out;
}

std::optional<StepReport> step_report(const UpgradeStep& step, const UpgradeNode& n,
                                      std::string_view type, UpgradeMode mode) {
  using S = UpgradeState;
  const std::string kind(type);
  if (step.to == S::CordonRequired && step.from != step.to) {
    const std::string what = "upgrading the " + kind + " driver of node " + n.name + " from " +
                             (n.running.empty() ? std::string("none") : n.running) + " to " +
                             n.target + " (" + (mode == UpgradeMode::Force ? "Force" : "Secure") +
                             ")";
    return StepReport{false, "DriverUpgradeStarted", what, "driver upgrade started: " + what,
                      AuditResult::Success};
  }
  if (step.to == S::Done && step.from == S::UncordonRequired) {
    const std::string what = "node " + n.name + " runs the " + kind + " driver " + n.target;
    return StepReport{false, "DriverUpgraded", what, "driver upgraded: " + what,
                      AuditResult::Success};
  }
  if (step.to == S::Failed && step.from != step.to) {
    const std::string what = "node " + n.name + ": " + step.reason + ": " + step.message;
    return StepReport{true, "DriverUpgradeFailed", what, "driver upgrade failed: " + what,
                      AuditResult::Failure};
  }
  if (step.from == S::Failed && step.to == S::DriverRestartRequired) {
    return StepReport{false, "DriverUpgradeRetried",
                      "node " + n.name + ": restarting the " + kind + " driver " + n.target +
                          " again (attempt " + std::to_string(n.attempts + 2) + ")",
                      std::nullopt, AuditResult::Success};
  }
  return std::nullopt;
}

std::string step_audit_key(const UpgradeStep& step, const UpgradeNode& n) {
  return std::string(to_string(step.from)) + ">" + std::string(to_string(step.to)) + ">" +
         n.target + ">" + std::to_string(n.attempts);
}

std::optional<std::chrono::milliseconds> next_upgrade_round(const UpgradePlan& plan, bool busy,
                                                            TimePoint now) {
  auto wake = plan.next_check;
  auto at = [&](TimePoint t) {
    if (!wake || t < *wake) wake = t;
  };
  if (busy) at(now + std::chrono::milliseconds(500));
  if (plan.running()) at(now + std::chrono::seconds(10));
  if (!wake) return std::nullopt;
  return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(*wake - now),
                  std::chrono::milliseconds(100));
}

}  // namespace respool::policy
