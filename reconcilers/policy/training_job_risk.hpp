#pragma once
// The risk level of a fault-tolerant training job as its fault monitor sees it (O2, O5): read
// from what the training-job controller keeps on the Job (the restart ledger and the running
// records), so that every write of the controller can carry the label it implies and a
// restarted operator computes the same one.

#include <optional>
#include <string>
#include <vector>

#include "reconcilers/policy/risk.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/training_faults.hpp"

namespace respool::policy {

// The node a run ended on because of it (J2's reasons "node n-3 not ready (A050202)" and
// "disrupted on node n-3 (...)"), or "" when the run did not end on a node's fault.
std::string fault_node(const RunningRecord& record);

// O2, O3 and O5 for a protected job: `shown` is the label the Job carries now (if any),
// `code_error` the highest level of the failures the catalogue recognised (if any).
Risk training_job_risk(const RestartLedger& ledger, const std::vector<RunningRecord>& records,
                       std::optional<Risk> shown, std::optional<Risk> code_error = std::nullopt);

}  // namespace respool::policy
