#pragma once
// Writes a Diagnosis and its report: the object (created when missing; found in the cache when a
// restarted operator or a second replica created it already), then its status (guarded by the
// object's resourceVersion), then a Warning event Diagnosed on the Job. A report already
// Completed is never written again, so that each anomaly has exactly one report, written once.

#include <string>

#include <nlohmann/json.hpp>

#include "reconcilers/context.hpp"
#include "reconcilers/policy/diagnosis_report.hpp"

namespace respool::reconcilers {

enum class Written { Now, Already };

// `object`: the Diagnosis to create (metadata.name and namespace set); `status`: its report;
// `cached`: the object as the cache shows it, if it does (found there, it is not created again;
// its resourceVersion guards the status); `job`: the Job, for the event. A report that exists
// but is not in the cache yet is a lost race (Conflict): the next round finds it there.
Outcome<Written> write_report(const Context& ctx, const nlohmann::json& object,
                              const nlohmann::json& status, const kube::Unstructured* cached,
                              const runtime::ObjectReference& job);

// The basic information of the Job a report is on, from the cache: whole for a protected Job,
// else its metadata and the pool it selects (what the cache does not keep is left out);
// `workers_found` stands in for a parallelism the cache does not show.
policy::JobInfo report_job_info(const kube::Unstructured& job, const policy::Catalog& catalog,
                                int workers_found);

// The event's note: "diagnosis llm-0-x-code: Code, risk High: torch.OutOfMemoryError: ...".
std::string diagnosed_note(const std::string& name, const nlohmann::json& status);

}  // namespace respool::reconcilers
