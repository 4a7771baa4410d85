#pragma once
// The writes of the training-job controller, as JSON merge patches (pure). Each carries the
// Job's resourceVersion: a decision made from a stale cache, or by a second worker, loses its
// write (409) instead of being applied twice.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/fault_tolerance.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/training_faults.hpp"

namespace respool::policy {

// The ledger and the records as the Job's annotations; `suspend` set when given.
nlohmann::json job_annotations_patch(const std::string& resource_version,
                                     const RestartLedger& ledger, const FaultTolerance& tolerance,
                                     const std::vector<RunningRecord>* records,
                                     std::optional<bool> suspend = std::nullopt);

// For the status subresource: status.startTime cleared, so that the suspended Job's pod
// template may change (Kubernetes allows its scheduling fields to change only then).
nlohmann::json clear_start_time_patch(const std::string& resource_version);

// The resume: the ledger, the pod template's run label, the NotIn term for the excluded nodes
// (J4) and suspend false. `affinity` is the template's spec.affinity as it is now.
nlohmann::json resume_patch(const std::string& resource_version, const RestartLedger& ledger,
                            const FaultTolerance& tolerance, const nlohmann::json& affinity);

// `affinity` with every required node-selector term also demanding that metadata.name is none
// of `nodes` (terms are ORed: each must exclude them); a term is made when there is none. The
// user's own terms and expressions are kept (a metadata.name NotIn of theirs gains the nodes).
nlohmann::json exclude_nodes(nlohmann::json affinity, const std::vector<std::string>& nodes);

}  // namespace respool::policy
