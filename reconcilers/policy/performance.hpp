#pragma once
// Performance monitoring of a training job (O4, O12), pure: a straggler is a worker whose
// activity over the window stays far below the job's other workers'. The measure is each
// worker's accelerator use over the window (docs/metrics.md's ma_container_gpu_util or
// ma_container_npu_util, from Prometheus) where the operator is given one, else how many lines
// each worker logged in the window (its log rate, read through pods/log): what every cluster
// has. The controller reads the activity; this file reads the Job's opt-in, finds the
// stragglers and words the report.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reconcilers/policy/diagnosis_report.hpp"
#include "reconcilers/policy/training_job_step.hpp"

namespace respool::policy {

// The documents' "Performance Monitoring and Diagnosis", enabled per job.
inline constexpr const char* kPerformanceMonitoringAnnotation = "respool.io/performance-monitoring";
inline constexpr const char* kPerformanceWindowAnnotation = "respool.io/performance-window";
inline constexpr std::chrono::seconds kDefaultPerformanceWindow{600};
inline constexpr std::chrono::seconds kMinPerformanceWindow{60};
// A worker's log read per check: the window's beginning up to this many bytes (limitBytes).
inline constexpr std::size_t kActivityReadBytes = 16 * 1024;
// A straggler did less than this share of the median of the job's other workers...
inline constexpr double kStragglerShare = 0.5;
// ...which logged at least this many lines in the window, or used their accelerators at least
// this much (percent): less is too little to compare.
inline constexpr double kMinComparableLines = 4;
inline constexpr double kMinComparableUse = 10;

enum class Measure {
  LogLines,        // lines logged in the window
  AcceleratorUse,  // percent, averaged over the window and the worker's accelerators
};

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
  double amount = 0;      // lines it logged, or its accelerator use (Measure)
  bool at_least = false;  // the read stopped at kActivityReadBytes: it logged at least that many
};

struct Straggler {
  std::size_t index = 0;     // into the activities
  double others_median = 0;  // lines of the job's other workers (their median)
};
// O4: each worker below kStragglerShare of the median of the others, when those reach the
// measure's minimum (kMinComparableLines, kMinComparableUse); a read cut at its bound is never
// one. At least two workers.
std::vector<Straggler> find_stragglers(const std::vector<WorkerActivity>& activities,
                                       Measure measure);

// Which workers a check compares (O4): every running worker, once each has run a whole window.
// Until then, or while the job restarts, none, and `wait_until` says when to look again (when
// the last started has run a window; a second from now at the soonest, a window at the latest).
struct Comparison {
  std::vector<std::size_t> compared;  // into the workers
  std::optional<TimePoint> wait_until;
};
Comparison plan_comparison(const std::vector<Worker>& workers,
                           const std::map<int, TimePoint>& started_at, bool restarting,
                           TimePoint now, std::chrono::seconds window);

// The report's result: the worker, its node, its measure and the others', Medium (O4).
DiagnosisResult straggler_result(const WorkerActivity& worker, double others_median,
                                 std::chrono::seconds window, Measure measure);

}  // namespace respool::policy
