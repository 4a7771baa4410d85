#pragma once
// The disruption controller's arithmetic for a PodDisruptionBudget's status.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/runtime/clock.hpp"

namespace respool::sandbox {

using Json = nlohmann::json;

// An int-or-percent scaled against `total` ("50%" of 3 rounds up to 2), as
// intstr.GetScaledValueFromIntOrPercent(value, total, true). -1 when malformed.
long scaled_value(const Json& value, long total);

// The status a PDB should show given the pods of its namespace that its selector matches:
// expectedPods (the matching pods: the sandbox has no workload controllers' scale to ask),
// desiredHealthy from minAvailable or maxUnavailable, currentHealthy (Running, Ready=True, not
// terminating, not recently evicted), disruptionsAllowed, observedGeneration, the
// DisruptionAllowed condition; disruptedPods entries for pods that still exist and are under
// two minutes old are kept.
Json pdb_status(const Json& pdb, const std::vector<const Json*>& pods, runtime::TimePoint now);

// True when a pod is Running with condition Ready=True and not terminating.
bool pod_healthy(const Json& pod);

}  // namespace respool::sandbox
