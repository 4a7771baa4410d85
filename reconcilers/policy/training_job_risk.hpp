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

// What the other monitors found: the highest level of the failures the catalogue recognised
// (O3), whether performance monitoring found a straggler (O4), whether a Standard diagnosis of
// the job gathers now (O6).
struct MonitorFindings {
  std::optional<Risk> code_error;
  bool straggler = false;
  bool check_running = false;
};

// O2-O6 for a protected job: `shown` is the label the Job carries now (if any). Monitoring
// shown stays while nothing is found, unless `found` says no check runs: only the diagnosis
// controller, which sees the checks, ends it.
Risk training_job_risk(const RestartLedger& ledger, const std::vector<RunningRecord>& records,
                       std::optional<Risk> shown, std::optional<MonitorFindings> found = {});

}  // namespace respool::policy
