#pragma once
// The annotation respool.io/fault-tolerance on a training Job: its RestartLedger (J3, J5) as
// JSON, with the retries left beside the retries used, so that `kubectl get job -o jsonpath`
// answers how many restarts a job has had and has left. Everything a restarted operator needs
// to resume a restart where it stopped is here.

#include <nlohmann/json.hpp>

#include "reconcilers/policy/fault_tolerance.hpp"
#include "reconcilers/policy/training_faults.hpp"

namespace respool::policy {

inline constexpr const char* kFaultToleranceStateAnnotation = "respool.io/fault-tolerance";
// On a training Job's pod template, and so on its pods: which run they belong to.
inline constexpr const char* kRunLabel = "respool.io/run";

// {"retriesUsed": 1, "retriesLeft": 2, "hangRestarts": 0, "run": 1,
//  "restarting": {"since": ..., "worker": "worker-3", "node": "gpu-3", "reason": ...,
//                 "recover": "job_reschedule_with_taint", "recoverBeforeDowngrade": ...,
//                 "excludeNode": false},
//  "lastHangRestart": ..., "killing": {"at": ..., "restartCounts": {"0": 2}},
//  "excludedNodes": [...], "exhausted": true, "jobRulesWarned": true}
nlohmann::json to_json(const RestartLedger& ledger, const FaultTolerance& tolerance);
// Lenient: what is absent or malformed reads as its default (a fresh ledger).
RestartLedger restart_ledger_from_json(const nlohmann::json& object);

}  // namespace respool::policy
