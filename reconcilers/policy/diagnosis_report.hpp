#pragma once
// A Diagnosis report (O9, O10), pure: what one anomaly of a training job was, where, and what
// to do, as the documents' report lists it (faulty device, key log lines, category, component,
// module, recommended solution), written into the Diagnosis' status. The controllers gather the
// facts (the worker's exit and log, its node's findings, the running records); this file turns
// them into results, names the Automatic reports so that each anomaly has exactly one, and
// writes the objects.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/failure_catalogue.hpp"
#include "reconcilers/policy/failure_match.hpp"
#include "reconcilers/policy/risk.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

inline constexpr const char* kDiagnosisJobLabel = "respool.io/job";          // the Job's name
inline constexpr const char* kDiagnosisMonitorLabel = "respool.io/monitor";  // Automatic only

enum class Monitor { FaultMonitoring, CodeErrorDetection, PerformanceMonitoring };
std::string_view to_string(Monitor monitor);

// The faulty device of a result.
struct FaultyDevice {
  std::string node, pod;
  std::optional<int> worker, exit_code;
  std::string accelerator;     // "GPU 3": the device the node agent's finding names
  std::string isolation_code;  // "A050101"
};

struct KeyLine {
  std::string pod, time, text;
};

struct DiagnosisResult {
  std::string symptom, fault;
  std::optional<FailureCategory> category;
  std::string component, module;
  Risk risk = Risk::NoRisk;
  std::string catalog_entry, solution;
  FaultyDevice device;
  std::vector<KeyLine> key_lines;
};

// A finding of the node agent on a Node: one of its conditions that is False (H14), its reason
// the isolation code and its message "GPU 3 (GPU-…): volatile uncorrectable ECC errors: 2; …".
struct NodeFinding {
  std::string condition, code, device, message;
};
// The agent's False conditions of a Node object (its status.conditions).
std::vector<NodeFinding> node_findings(const nlohmann::json& node);

// O8: a failed worker that the catalogue recognised.
DiagnosisResult code_error_result(const FailureCatalogue& catalogue, const FailureFinding& finding,
                                  FaultyDevice device);

// O2: a run that ended on a node's fault (its record, J7), with the node's findings where the
// node still shows them. nullopt: the record's run did not end on a node's fault.
std::optional<DiagnosisResult> fault_restart_result(const RunningRecord& record,
                                                    const std::vector<NodeFinding>& findings);

// The isolation codes a J2 reason names ("node n-3 abnormal: GPU memory (A050101)").
std::vector<std::string> codes_in(std::string_view reason);

// Names of the Automatic reports, one per anomaly, so that a restarted operator finds the one it
// wrote instead of writing another: "<pod>-code" (or "-code-<n>" for the container's n-th
// restart), "<job>-restart-<run>" and "<pod>-straggler". Longer than a name may be: cut, with a
// hash of the whole.
std::string code_error_name(const std::string& pod, int restarts);
std::string fault_restart_name(const std::string& job, std::size_t run);
std::string straggler_name(const std::string& pod);

// The results, the highest risk first (stable), and the summary the columns show.
void order_results(std::vector<DiagnosisResult>& results);
nlohmann::json results_json(const std::vector<DiagnosisResult>& results);

// The basic information of the Job (status.job).
struct JobInfo {
  std::string name, uid, pool, resource_type, phase, creator;
  int workers = 0;
  TimePoint created{};
};
nlohmann::json job_info_json(const JobInfo& job);

// A Diagnosis' status once gathered: phase Completed, the results and their summary (risk and
// category of the first), the job's information, the time it took and what it cost.
struct Gathered {
  JobInfo job;
  std::vector<DiagnosisResult> results;
  std::optional<Monitor> monitor;
  std::string reason, message, creator;
  TimePoint started{}, completed{};
  long long requests = 0, log_bytes = 0;
};
nlohmann::json completed_status(Gathered gathered);

// An Automatic Diagnosis for `job` (its namespace, name and uid), owned by the Job.
nlohmann::json automatic_diagnosis(const std::string& name, const std::string& ns,
                                   const std::string& job, const std::string& job_uid,
                                   Monitor monitor, const std::string& description);

}  // namespace respool::policy
