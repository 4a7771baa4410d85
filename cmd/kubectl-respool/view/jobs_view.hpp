#pragma once
// `kubectl respool jobs POOL`, decided from the objects alone (pure).

#include "cmd/kubectl-respool/view/object_read.hpp"
#include "cmd/kubectl-respool/view/table.hpp"

namespace respool::kubectl {

// Running jobs (from `pods`, a PodList: those running on a node of `nodes`, grouped by their
// controlling owner, a bare pod by itself) and then the pending queue of the pool's
// status.jobs, with its positions, as the operator ordered it.
Table jobs_table(const Json& pool, const Json& nodes, const Json& pods, bool wide,
                 Clock::time_point now);

// -o json|yaml: the pool's name, its running jobs as jobs_table finds them, and its
// status.jobs as the operator wrote it.
Json jobs_data(const Json& pool, const Json& nodes, const Json& pods);

}  // namespace respool::kubectl
