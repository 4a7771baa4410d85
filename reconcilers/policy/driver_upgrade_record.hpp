#pragma once
// The pool's P9 record of a driver upgrade, kept from what its nodes' upgrade labels say (the
// same reading as status.driver): it begins when the first node is marked, lists each node that
// starts, finishes, fails or is retried as a step with its time, notes a change of target, and
// ends once no node is marked, in flight or due for a retry: Succeeded, or Failed naming the
// nodes that stayed failed. Kept by the pool controller, which owns the pool's status; every
// step is derived from the nodes, so a restarted operator neither repeats nor loses one.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/records.hpp"

namespace respool::policy {

// Step names of an UpgradeDriver record.
inline constexpr const char* kStepStarted = "Started";        // the upgrade began: its target
inline constexpr const char* kStepRetargeted = "Retargeted";  // the target changed meanwhile
inline constexpr const char* kStepNodeStarted = "NodeStarted";
inline constexpr const char* kStepNodeUpgraded = "NodeUpgraded";
inline constexpr const char* kStepNodeFailed = "NodeFailed";  // message: "<reason>: <message>"
inline constexpr const char* kStepNodeRetried = "NodeRetried";

struct DriverRecordRound {
  std::span<const UpgradedNode> nodes;  // the pool's GPU/NPU nodes
  const DriverProgress* progress = nullptr;
  std::string target;   // what the upgrade installs, in words: "GPU driver 550.54.15"
  int retry_limit = 0;  // a failed node below it is retried: the upgrade is not over
};

// Updates the running UpgradeDriver record (beginning or ending it); returns what ended.
std::optional<EndedRecord> track_driver_record(std::vector<Record>& records,
                                               const DriverRecordRound& round, TimePoint now);

}  // namespace respool::policy
