#pragma once
// `kubectl respool nodes POOL`, decided from the objects alone (pure). Node states and fault
// codes are the operator's own classification (reconcilers/policy/node_state.hpp).

#include <string>
#include <vector>

#include "cmd/kubectl-respool/view/object_read.hpp"
#include "cmd/kubectl-respool/view/table.hpp"

namespace respool::kubectl {

struct NodeInfo {
  std::string state;               // Available, Abnormal, Creating, ...
  std::vector<std::string> codes;  // fault codes, or the operational state's code
};
NodeInfo node_state(const Json& node);

// Each node's state, codes, upgrade state and NodeOperation (`operations`, a NodeOperationList,
// gives the operation's phase for the node in -o wide).
Table nodes_table(const Json& nodes, const Json& operations, bool wide, Clock::time_point now);

}  // namespace respool::kubectl
