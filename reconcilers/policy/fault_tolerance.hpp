#pragma once
// A training job's fault tolerance as its annotations ask (J1), and whether the Job's own rules
// would end it first (J8). The annotations are spelled exactly as the documents spell them
// (fault-tolerance/*); respool adds respool.io/hang-timeout.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace respool::policy {

inline constexpr const char* kRetryNumAnnotation = "fault-tolerance/job-retry-num";
inline constexpr const char* kUnconditionalRetryAnnotation =
    "fault-tolerance/job-unconditional-retry";
inline constexpr const char* kHangRetryAnnotation = "fault-tolerance/hang-retry";
inline constexpr const char* kHangTimeoutAnnotation = "respool.io/hang-timeout";
inline constexpr int kMinRetries = 1, kMaxRetries = 128;
inline constexpr std::chrono::seconds kDefaultHangTimeout = std::chrono::minutes(30);
inline constexpr std::chrono::seconds kMinHangTimeout = std::chrono::minutes(1);

struct FaultTolerance {
  int retries = 0;             // job-retry-num; 0: no restarts upon faults
  bool unconditional = false;  // any failed worker counts, not only faults
  bool hang_retry = false;     // restart in place when the job hangs
  std::chrono::seconds hang_timeout = kDefaultHangTimeout;
  bool operator==(const FaultTolerance&) const = default;
};

// A value out of range: which annotation, its value, the rule and what it must be.
struct AnnotationProblem {
  std::string annotation, value, message;  // message names the rule (J1)
};

struct FaultToleranceReading {
  // nullopt: no fault-tolerance/* annotation (the job is left alone), or a value is wrong.
  std::optional<FaultTolerance> tolerance;
  std::vector<AnnotationProblem> problems;  // each wrong value (then tolerance is nullopt)
};
FaultToleranceReading read_fault_tolerance(const std::map<std::string, std::string>& annotations);

// J8: what of the Job's own rules would end it before respool's retries are used; "" if none.
struct JobRules {
  int backoff_limit = 6;              // spec.backoffLimit (Kubernetes' default 6)
  bool pod_failure_fail_job = false;  // a podFailurePolicy rule with action FailJob
};
std::string job_rules_conflict(const JobRules& rules, const FaultTolerance& tolerance);

}  // namespace respool::policy
