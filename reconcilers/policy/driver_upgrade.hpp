#pragma once
// Rolling driver upgrades (D1–D4): the per-node state machine that lives on the node (label
// respool.io/driver-upgrade-state), and the batch slots, handed out in this one function per
// pool, so that no race (two workers, a restart, a resync) exceeds them. As in NVIDIA's
// k8s-operator-libs pkg/upgrade, every state names what the node needs next; the controller
// does that, then writes the next state, so a restarted operator resumes exactly where it
// stopped: each action is safe to repeat (cordon a cordoned node, delete a gone pod).
//
//   (none) → upgrade-required → cordon-required → wait-for-jobs-required (Secure)
//                                               → pod-deletion-required (Force)
//          → driver-restart-required → validation-required → uncordon-required → upgrade-done
//   validation-required past its timeout → upgrade-failed (with its cause); retried by policy.

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reconcilers/policy/spec.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

enum class UpgradeState {
  None,  // no label
  Required,
  CordonRequired,
  WaitForJobsRequired,
  PodDeletionRequired,
  DriverRestartRequired,
  ValidationRequired,
  UncordonRequired,
  Done,
  Failed,
};
std::string_view to_string(UpgradeState state);  // the label's value; None: ""
// A label value respool did not write (edited by hand) reads as upgrade-required: the machine
// starts over for that node, which is safe (every step can be repeated).
UpgradeState parse_upgrade_state(std::string_view label);
// Between cordon and uncordon: the states that hold one of the batch's slots.
bool in_flight(UpgradeState state);

// D2: the batch, of the pool's nodes: a percentage rounds up, at least 1; a quantity as given;
// omitted, every node at once.
int batch_size(const std::optional<IntOrPercent>& max_unavailable, int pool_nodes);

// The node's driver pod (of the pool's driver DaemonSet for its accelerator), as observed.
struct DriverPod {
  std::string name;
  std::string version;  // its template's respool.io/driver-version
  bool ready = false;
  bool deleting = false;
};

struct UpgradeNode {
  std::string name;
  std::string target;   // the version the pool asks for this node's accelerator
  std::string running;  // its respool.io/driver-version label; "" when none
  UpgradeState state = UpgradeState::None;
  std::optional<TimePoint> since;  // when it entered `state`
  int attempts = 0;                // driver restarts after a failure, so far
  bool skip = false;               // respool.io/driver-upgrade.skip=true
  bool healthy = true;             // Ready, reachable, no fault code (F1, F2)
  bool held = false;  // in a NodeOperation, being released, or in admission: not started now
  // In the pool's admission (A200008): not Available yet, so its driver is made right without a
  // slot (an old driver pod restarted), and it is admitted once validated at the target.
  bool admitting = false;
  int jobs = 0;  // running job pods on it
  std::optional<DriverPod> driver_pod;
};

struct UpgradeSettings {
  UpgradeMode mode = UpgradeMode::Secure;
  int batch = 1;
  std::chrono::seconds validation_timeout = std::chrono::minutes(10);
  int retry_limit = 2;  // driver restarts of a failed node before it stays failed
  std::chrono::seconds retry_interval = std::chrono::minutes(5);
};

// What the controller does to a node before writing its next state.
enum class UpgradeAction {
  None,
  DeleteJobPods,    // Force: the job pods on the node (listed in an event)
  DeleteDriverPod,  // the DaemonSet (OnDelete) brings the target version
};

struct UpgradeStep {
  std::string node;
  UpgradeState from = UpgradeState::None;
  UpgradeState to = UpgradeState::None;  // == from when only the action is due
  UpgradeAction action = UpgradeAction::None;
  std::string reason;   // upgrade-failed: ValidationTimeout
  std::string message;  // upgrade-failed: what was seen
};

struct UpgradeCounts {
  int upgraded = 0;   // runs the target, nothing left to do
  int upgrading = 0;  // between cordon and uncordon
  int pending = 0;    // waits for a slot, or has not been marked yet
  int failed = 0;
  bool operator==(const UpgradeCounts&) const = default;
};

struct UpgradePlan {
  std::vector<UpgradeStep> steps;
  UpgradeCounts counts;  // after the steps
  int slots = 0;         // batch left after what is in flight and what is unhealthy
  // When a timeout or a retry falls due, if nothing else brings the pool back first.
  std::optional<TimePoint> next_check;
  bool running() const { return counts.upgrading > 0 || counts.pending > 0; }
};

// The round's steps for the pool's upgradable nodes (GPU/NPU nodes of the pool). NotReady or
// abnormal nodes not in flight take a slot each (they are unavailable already); failed nodes do
// not, so that one failure does not stop the rest.
UpgradePlan plan_upgrade(std::span<const UpgradeNode> nodes, const UpgradeSettings& settings,
                         TimePoint now);

}  // namespace respool::policy
