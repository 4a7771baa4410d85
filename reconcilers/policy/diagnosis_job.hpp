#pragma once
// The basic information of a Job as a Diagnosis reports it (status.job): what the documents'
// report lists (job, creation time, creator, resource type) read from the Job object alone.

#include <string>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/diagnosis_report.hpp"

namespace respool::policy {

// Who created an object: the manager of its earliest managedFields entry that is not a
// subresource's ("kubectl-create", "kubectl-client-side-apply", "helm"), or "" when none says.
std::string creator_of(const nlohmann::json& object);

// GPU or NPU when the pod template asks for a catalog flavor's accelerator resource, else CPU.
std::string resource_type(const nlohmann::json& job, const Catalog& catalog);

// Running, Suspended, Succeeded (condition Complete) or Failed (condition Failed).
std::string job_phase(const nlohmann::json& job);

JobInfo job_info(const nlohmann::json& job, const std::string& pool, const Catalog& catalog);

}  // namespace respool::policy
