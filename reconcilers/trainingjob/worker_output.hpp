#pragma once
// When a worker last wrote to its log, read through the API as `kubectl logs` reads it: one GET
// of pods/log with sinceSeconds (the hang window), tailLines=1 and timestamps, so a check costs
// one small request per worker and never reads the log itself (J5).

#include <chrono>
#include <optional>
#include <string>

#include "operator/kube/client.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::reconcilers {

struct OutputQuery {
  std::string ns, pod, container;
  std::chrono::seconds window{};
  policy::TimePoint now{};
};

// The time of the last line within the window; nullopt when the worker wrote nothing in it.
kube::Result<std::optional<policy::TimePoint>> last_output(kube::Client& client,
                                                           const OutputQuery& query);

// The timestamp that starts a line of `kubectl logs --timestamps` (RFC 3339 with nanoseconds).
std::optional<policy::TimePoint> line_timestamp(std::string_view line);

}  // namespace respool::reconcilers
