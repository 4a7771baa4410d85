#pragma once
// The writes a NodeOperation makes on nodes, as JSON merge patches guarded by the node's
// resourceVersion (like node_patch.hpp). Each records on the node what it did, so that a
// restarted operator sees where the node stands and undoes only what respool did: it uncordons
// only what it cordoned.

#include <string_view>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/node_operation_steps.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::policy {

// Puts the node into `operation`: respool.io/node-operation(-type); Replace and Reset also
// cordon it (recording respool.io/cordoned-by unless it was cordoned already), and Reset
// taints it respool.io/resetting:NoSchedule (N5). Delete leaves the drain to the pool.
nlohmann::json mark_patch(const NodeView& node, std::string_view operation, NodeOperationType type);

// Replace, last step: the node leaves its pool (release_patch) and is retired for good:
// label and NoSchedule taint respool.io/retired, and the annotation respool.io/retired saying
// by what and for which replacement. It stays cordoned.
nlohmann::json retire_patch(const NodeView& node, std::string_view operation, std::string_view pool,
                            std::string_view replacement, std::string_view when);

// Reset, after the Job succeeded: resetting off, admission (A200008) on (F3); on GPU/NPU nodes
// of a pool with a driver version, respool.io/driver-upgrade-state=upgrade-required (N7).
nlohmann::json readmit_patch(const NodeView& node, bool driver_upgrade_required);

// Undoes what `r` says on a node whose part ended; `reason` goes to respool.io/cordon-reason
// when the node stays cordoned. Null when nothing is left to undo.
nlohmann::json restore_patch(const NodeView& node, const Restore& r, std::string_view reason);

// A failed replacement's new node becomes an ordinary pool node: respool.io/replacement-for off.
nlohmann::json detach_replacement_patch(const NodeView& node);

}  // namespace respool::policy
