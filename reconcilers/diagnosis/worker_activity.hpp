#pragma once
// How many lines a worker logged in the performance window (O4's fallback measure), read as
// `kubectl logs --since=<window> --limit-bytes=16384` reads it: one GET of pods/log per worker
// and check, at most 16 KiB; a read cut at that bound says "at least" (limitBytes keeps the
// window's beginning, so the count is a lower bound).

#include <chrono>
#include <string>

#include "operator/kube/client.hpp"

namespace respool::reconcilers {

struct LoggedLines {
  double lines = 0;
  bool at_least = false;
  long long bytes = 0;
};

kube::Result<LoggedLines> logged_lines(kube::Client& client, const std::string& ns,
                                       const std::string& pod, const std::string& container,
                                       std::chrono::seconds window);

}  // namespace respool::reconcilers
