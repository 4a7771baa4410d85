#include "reconcilers/policy/fault_tolerance.hpp"

#include <tuple>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

std::optional<int> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 3 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  int n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::optional<bool> parse_bool(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

const std::string* find(const std::map<std::string, std::string>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

FaultToleranceReading read_fault_tolerance(const std::map<std::string, std::string>& annotations) {
  FaultToleranceReading out;
  const std::string* retries = find(annotations, kRetryNumAnnotation);
  const std::string* unconditional = find(annotations, kUnconditionalRetryAnnotation);
  const std::string* hang = find(annotations, kHangRetryAnnotation);
  if (!retries && !unconditional && !hang) return out;
  FaultTolerance t;
  if (retries) {
    auto n = parse_count(*retries);
    if (!n || *n < kMinRetries || *n > kMaxRetries) {
      out.problems.push_back({kRetryNumAnnotation, *retries,
                              "J1: " + std::string(kRetryNumAnnotation) +
                                  " must be an integer from 1 to 128, not \"" + *retries + "\""});
    } else {
      t.retries = *n;
    }
  }
  for (auto [key, value, field] :
       {std::tuple{kUnconditionalRetryAnnotation, unconditional, &t.unconditional},
        std::tuple{kHangRetryAnnotation, hang, &t.hang_retry}}) {
    if (!value) continue;
    auto b = parse_bool(*value);
    if (!b) {
      out.problems.push_back(
          {key, *value,
           "J1: " + std::string(key) + " must be \"true\" or \"false\", not \"" + *value + "\""});
    } else {
      *field = *b;
    }
  }
  if (const std::string* timeout = find(annotations, kHangTimeoutAnnotation)) {
    auto d = parse_duration(*timeout);
    if (!d || *d < kMinHangTimeout) {
      out.problems.push_back({kHangTimeoutAnnotation, *timeout,
                              "J1: " + std::string(kHangTimeoutAnnotation) +
                                  " must be a duration of at least 1m (such as 30m or 1h), not \"" +
                                  *timeout + "\""});
    } else {
      t.hang_timeout = *d;
    }
  }
  if (out.problems.empty()) out.tolerance = t;
  return out;
}

std::string job_rules_conflict(const JobRules& rules, const FaultTolerance& t) {
  if (rules.pod_failure_fail_job) {
    return "J8: the Job's podFailurePolicy has a FailJob rule: Kubernetes ends the job on a "
           "matching failure before respool can restart it";
  }
  if (t.retries > 0 && rules.backoff_limit < t.retries) {
    return "J8: the Job's backoffLimit " + std::to_string(rules.backoff_limit) + " is below " +
           std::string(kRetryNumAnnotation) + " " + std::to_string(t.retries) +
           ": each fault fails at least one pod, so Kubernetes may end the job before respool's "
           "retries are used";
  }
  return {};
}

}  // namespace respool::policy
