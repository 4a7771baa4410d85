#pragma once
// The writes a driver upgrade makes on a node, as JSON merge patches guarded by the node's
// resourceVersion (like node_operation_patch.hpp). The node carries its whole upgrade: the state
// label, when it entered it, the isolation taint while it upgrades (D4), whether respool
// cordoned it, the retries and the cause of a failure. So a restarted operator resumes from the
// node alone, and undoes only what it did: it uncordons only what it cordoned.

#include <string_view>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/driver_upgrade.hpp"
#include "reconcilers/policy/node_view.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// The isolation code of an upgrade of the accelerator type's driver: A200001 (GPU), A200002.
std::string_view upgrade_code(AcceleratorType type);

// The write that takes `node` from step.from to step.to at `now` (RFC 3339):
//   - the state label (removed for None) and respool.io/driver-upgrade-since;
//   - between cordon and uncordon: the isolation taint, and a cordon recorded with
//     respool.io/cordoned-by=driver-upgrade, only if the node was schedulable (a node an
//     administrator cordoned stays theirs);
//   - leaving them: the taint off; uncordoned only if respool cordoned it (upgrade-done); a failed
//     node stays cordoned, with respool.io/driver-upgrade-failure saying why;
//   - a retry counts in respool.io/driver-upgrade-attempts.
// Null when the step changes nothing on the node (an action only).
nlohmann::json upgrade_patch(const NodeView& node, const UpgradeStep& step, AcceleratorType type,
                             std::string_view now);

}  // namespace respool::policy
