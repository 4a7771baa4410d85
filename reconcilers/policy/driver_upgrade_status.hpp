#pragma once
// What the nodes of a pool say about its driver upgrade (issue 14): each node's upgrade as read
// from its labels and annotations, and the pool's progress: status.driver, the DriverUpgrading
// condition, and whether the pool is Upgrading. The pool controller reports it; the upgrade
// controller acts on the same reading, so the two never disagree about a node.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/conditions.hpp"
#include "reconcilers/policy/driver_upgrade.hpp"
#include "reconcilers/policy/node_view.hpp"
#include "reconcilers/policy/spec.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// A node's upgrade as its labels and annotations record it; `target` is the version its pool
// asks for its accelerator. Health, holds, jobs and the driver pod are the caller's to fill.
UpgradeNode read_upgrade_node(const NodeView& node, std::string target);

struct UpgradedNode {
  UpgradeNode node;
  AcceleratorType type = AcceleratorType::GPU;
  std::string failure;  // respool.io/driver-upgrade-failure: "<reason>: <message>"
};
UpgradedNode read_upgraded_node(const NodeView& node, std::string target, AcceleratorType type);

struct FailedUpgrade {
  std::string name, reason, message;
};

struct DriverProgress {
  std::optional<std::string> gpu_version, npu_version;  // what every node of the type runs
  std::optional<std::string> gpu_target, npu_target;
  UpgradeCounts counts;
  std::vector<FailedUpgrade> failed;
  bool upgrading = false;  // some node is marked or between cordon and uncordon
};

DriverProgress driver_progress(std::span<const UpgradedNode> nodes,
                               const std::optional<std::string>& gpu_target,
                               const std::optional<std::string>& npu_target);

// What the pool's upgrade installs, in words: "GPU driver 550.54.15 and NPU driver 23.0.6".
std::string targets_words(const DriverProgress& progress);

// status.driver: {gpuVersion, npuVersion, target: {...}, nodes: {upgraded, upgrading, pending,
// failed}, failedNodes: [{name, reason, message}]}.
nlohmann::json driver_status_json(const DriverProgress& progress);

// The DriverUpgrading condition: True (Upgrading) while nodes are marked or in flight; False
// with why not: PoolNotRunning (D3: only a Running pool starts), NodeBindingRequired (P13),
// UpgradeFailed (only failed nodes are left), UpToDate.
// `blocked`: why the upgrade may not start (D3, P13), or nullopt.
struct DriverBlock {
  std::string reason, message;
};
// Why the pool's upgrade may not start nodes now: D3 (only a Running pool; one already
// Upgrading goes on) and P13 (a Logical pool needs nodeBinding). Nodes already between cordon
// and uncordon finish either way.
std::optional<DriverBlock> driver_block(const ResourcePoolSpec& spec, std::string_view phase);

// N6: a pool's driver is being upgraded, as its written status says (phase Upgrading or the
// DriverUpgrading condition True): no node operation starts meanwhile.
bool pool_driver_upgrading(const nlohmann::json& pool_status);

Condition driver_condition(const DriverProgress& progress,
                           const std::optional<DriverBlock>& blocked,
                           const std::string& settings_words);

}  // namespace respool::policy
