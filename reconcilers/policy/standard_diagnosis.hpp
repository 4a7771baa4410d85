#pragma once
// A Standard diagnosis (issue 29, O11), pure: what respool gathered about a Job on demand (its
// Warning events, each worker's exit and last log lines, its nodes' findings, its running
// records, the NodeOperations that touched its nodes while it ran) turned into the report's
// results: every finding, the highest risk first.

#include <optional>
#include <string>
#include <vector>

#include "reconcilers/policy/diagnosis_report.hpp"
#include "reconcilers/policy/failure_catalogue.hpp"
#include "reconcilers/policy/failure_match.hpp"
#include "reconcilers/policy/running_records.hpp"

namespace respool::policy {

// A worker pod: where it ran and, when a container run failed, its exit and the log's end.
struct WorkerEvidence {
  std::string pod, node;
  std::optional<int> worker;             // its completion index
  std::optional<WorkerFailure> failure;  // the failed run (current or previous), if any
  std::string log;                       // the end of that run's log (failed runs only)
};

struct NodeEvidence {
  std::string name;
  bool missing = false;  // the Node is gone
  std::vector<NodeFinding> findings;
};

struct OperationEvidence {
  std::string name, type, phase;  // a NodeOperation touching one of the job's nodes
  std::vector<std::string> nodes;
};

struct EventEvidence {
  std::string time, reason, note;  // a Warning event of the Job
};

struct JobEvidence {
  std::vector<WorkerEvidence> workers;
  std::vector<NodeEvidence> nodes;
  std::vector<RunningRecord> records;
  std::vector<OperationEvidence> operations;
  std::vector<EventEvidence> warnings;  // oldest first
};

// Every finding: each failed run the catalogue recognises (O3), each node finding under a worker
// (the node, the worker on it, its accelerator and isolation code), each run that ended on a
// node's fault, each NodeOperation on the job's nodes, the Job's Warning events; highest risk
// first (O10).
std::vector<DiagnosisResult> standard_results(const JobEvidence& evidence,
                                              const FailureCatalogue* catalogue);

}  // namespace respool::policy
