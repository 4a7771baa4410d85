#pragma once
// Performance monitoring of a training job (O4, O12), pure: a straggler is a worker whose
// activity over the window stays far below the job's other workers'. The measure is how many
// lines each worker logged in the window (the workers' log rate, read through pods/log): what
// every cluster has, where per-task accelerator series need a Prometheus. The controller reads
// the activity; this file reads the Job's opt-in, finds the stragglers and words the report.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reconcilers/policy/diagnosis_report.hpp"

namespace respool::policy {

// The documents' "Performance Monitoring and Diagnosis", enabled per job.
inline constexpr const char* kPerformanceMonitoringAnnotation = "respool.io/performance-monitoring";
inline constexpr const char* kPerformanceWindowAnnotation = "respool.io/performance-window";
inline constexpr std::chrono::seconds kDefaultPerformanceWindow{600};
inline constexpr std::chrono::seconds kMinPerformanceWindow{60};
// A worker's log read per check: the window's beginning up to this many bytes (limitBytes).
inline constexpr std::size_t kActivityReadBytes = 16 * 1024;
// A straggler logged less than this share of the median of the job's other workers...
inline constexpr double kStragglerShare = 0.5;
// ...which logged at least this many lines in the window (fewer is too little to compare).
inline constexpr double kMinComparableLines = 4;

struct PerformanceMonitoring {
  std::chrono::seconds window = kDefaultPerformanceWindow;
};
struct PerformanceReading {
  std::optional<PerformanceMonitoring> monitoring;  // nullopt: not enabled, or invalid
  std::string problem;  // why the annotations are invalid ("O12: ..."), "" when they are not
};
// O12: `respool.io/performance-monitoring: "true"` turns it on; `respool.io/performance-window`
// (a duration of at least 1m, default 10m) sets the window.
PerformanceReading read_performance_monitoring(
    const std::map<std::string, std::string>& annotations);

// One worker's activity over a whole window.
struct WorkerActivity {
  int worker = -1;
  std::string pod, node;
  double lines = 0;       // lines it logged in the window
  bool at_least = false;  // the read stopped at kActivityReadBytes: it logged at least that many
};

struct Straggler {
  std::size_t index = 0;     // into the activities
  double others_median = 0;  // lines of the job's other workers (their median)
};
// O4: each worker that logged less than kStragglerShare of the median of the others, when those
// logged at least kMinComparableLines; a read cut at its bound is never one. At least two workers.
std::vector<Straggler> find_stragglers(const std::vector<WorkerActivity>& activities);

// The report's result: the worker, its node, what it and the others logged, Medium (O4).
DiagnosisResult straggler_result(const WorkerActivity& worker, double others_median,
                                 std::chrono::seconds window);

}  // namespace respool::policy
