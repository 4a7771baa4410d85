#pragma once
// What one round of the driver-upgrade controller decides beyond plan_upgrade (D1–D4): where a
// pool node stands (healthy, held, in admission) as its pool state says, what each step says in
// its event and audit line, and when the round looks again.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "reconcilers/policy/audit.hpp"
#include "reconcilers/policy/driver_upgrade.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

struct UpgradeStanding {
  bool healthy = true;     // not Abnormal, or already failed (F1, F2)
  bool held = false;       // in a NodeOperation, in admission, releasing or resetting
  bool admitting = false;  // in the pool's admission (A200008)
};
UpgradeStanding upgrade_standing(NodeState pool_state, UpgradeState upgrade,
                                 bool in_node_operation);

// A node's step in words: an event on the node, and for starts, ends and failures an audit line.
struct StepReport {
  bool warning = false;
  std::string reason, message;
  std::optional<std::string> audit;  // the audit line's message
  AuditResult result = AuditResult::Success;
};
// `type` is the accelerator's ("GPU", "NPU"). None for the steps nobody needs to read about.
std::optional<StepReport> step_report(const UpgradeStep& step, const UpgradeNode& node,
                                      std::string_view type, UpgradeMode mode);

// What a step's audit line is written once for: a lost race retries the step, not the line.
std::string step_audit_key(const UpgradeStep& step, const UpgradeNode& node);

// When the round looks again: soon after it wrote (`busy`), every 10 s while nodes are pending
// or in flight, at the plan's next timeout or retry; never sooner than 100 ms. None: only an
// event brings the pool back.
std::optional<std::chrono::milliseconds> next_upgrade_round(const UpgradePlan& plan, bool busy,
                                                            TimePoint now);

}  // namespace respool::policy
