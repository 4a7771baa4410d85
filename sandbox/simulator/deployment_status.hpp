#pragma once
// A Deployment's status as the Deployment controller computes it (calculateStatus,
// syncRolloutStatus and deploymentutil's condition helpers), pure. deployment_plan.hpp uses it.

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

// A DeploymentCondition with lastUpdateTime and lastTransitionTime at `now`.
nlohmann::json deployment_condition(const std::string& type, const std::string& status,
                                    const std::string& reason, const std::string& message,
                                    std::chrono::system_clock::time_point now);
// deploymentutil.SetDeploymentCondition: nothing when status and reason are unchanged; else the
// condition replaces the old one (keeping its lastTransitionTime when the status is the same)
// and moves to the end of the list.
void set_deployment_condition(nlohmann::json& status, nlohmann::json condition);
void remove_deployment_condition(nlohmann::json& status, const std::string& type);
const nlohmann::json* deployment_condition_of(const nlohmann::json& status,
                                              const std::string& type);

// calculateStatus: counts summed over `sets` (the new one's for updatedReplicas), the
// Deployment's conditions with Available set.
nlohmann::json calculate_deployment_status(const std::vector<const nlohmann::json*>& sets,
                                           const nlohmann::json* new_set,
                                           const nlohmann::json& deployment,
                                           std::chrono::system_clock::time_point now);

// syncRolloutStatus: calculateStatus plus the Progressing condition (complete, progressing or
// timed out) and ReplicaFailure. `recheck` is set when the deadline must be looked at again.
nlohmann::json rollout_status(const std::vector<const nlohmann::json*>& sets,
                              const nlohmann::json* new_set, const nlohmann::json& deployment,
                              std::chrono::system_clock::time_point now,
                              std::chrono::system_clock::duration& recheck);

bool deployment_complete(const nlohmann::json& deployment, const nlohmann::json& status);
// progressDeadlineSeconds set and not "infinite" (MaxInt32).
bool has_progress_deadline(const nlohmann::json& deployment);

}  // namespace respool::sandbox::sim
