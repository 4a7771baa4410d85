#pragma once
// `kubectl respool status`, decided from the objects alone (pure): every pool as a table, or one
// pool's page with its faulty nodes.

#include <string>

#include "cmd/kubectl-respool/view/object_read.hpp"
#include "cmd/kubectl-respool/view/table.hpp"

namespace respool::kubectl {

// One row per pool of a ResourcePoolList.
Table pools_table(const Json& pools, bool wide, Clock::time_point now);

// One pool's page: phase, nodes by state, faulty nodes with their codes (`nodes`: a NodeList of
// the pool's nodes), the replacement budget and its next free slot, driver progress, jobs.
std::string pool_page(const Json& pool, const Json& nodes, Clock::time_point now);

}  // namespace respool::kubectl
