#pragma once
// What `status`, `jobs` and `nodes` show, decided from the objects alone (pure): a ResourcePool,
// its Nodes, NodeOperations and Pods as the API returns them → tables and a status page.
// Node states and fault codes are the operator's own classification (policy/node_state.hpp).

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "cmd/kubectl-respool/view/table.hpp"

namespace respool::kubectl {

using Json = nlohmann::json;
using Clock = std::chrono::system_clock;

// `kubectl respool status`: one row per pool of a ResourcePoolList.
Table pools_table(const Json& pools, bool wide, Clock::time_point now);

// `kubectl respool status POOL`: the pool's page. `nodes` is a NodeList of the pool's nodes.
std::string pool_page(const Json& pool, const Json& nodes, Clock::time_point now);

// `kubectl respool jobs POOL`: running jobs (from `pods`, a PodList: those bound to a node of
// `nodes`, grouped by their controlling owner) and then the pending queue of status.jobs.
Table jobs_table(const Json& pool, const Json& nodes, const Json& pods, bool wide,
                 Clock::time_point now);

// `kubectl respool jobs POOL -o json|yaml`: the pool's name, its running jobs as jobs_table
// finds them, and its status.jobs as the operator wrote it.
Json jobs_data(const Json& pool, const Json& nodes, const Json& pods);

// `kubectl respool nodes POOL`: each node's state, codes, upgrade state and NodeOperation
// (`operations`, a NodeOperationList, gives the operation's phase for the node).
Table nodes_table(const Json& nodes, const Json& operations, bool wide, Clock::time_point now);

// "5m" since an RFC 3339 time, "" when absent or malformed.
std::string age_since(const Json& time, Clock::time_point now);

}  // namespace respool::kubectl
