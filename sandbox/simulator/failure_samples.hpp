#pragma once
// Failures a simulated worker can end with (sandbox.respool.io/failure, keys.hpp), for the tests
// and the demo of respool's code-error detection: each prints what the real framework prints
// as the last lines of its log, and ends with the exit code and reason the kubelet would report.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace respool::sandbox::sim {

struct FailureSample {
  std::string_view name;
  int exit_code;
  std::string_view reason;  // the container's terminated reason: "Error", "OOMKilled"
  std::vector<std::string_view> lines;
};

// nullopt for a name that is none of them (the pod then ends as its exit-code annotation says).
const FailureSample* find_failure_sample(std::string_view name);

}  // namespace respool::sandbox::sim
