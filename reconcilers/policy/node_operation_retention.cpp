#include "reconcilers/policy/node_operation_retention.hpp"

#include <algorithm>

namespace respool::policy {

namespace {

bool failed(const EndedOperation& e) {
  return e.phase != OperationPhase::Succeeded;
}

TimePoint expiry(const EndedOperation& e) {
  return e.completion +
         (failed(e) ? std::chrono::duration_cast<std::chrono::seconds>(kFailedRecordRetention)
                    : std::chrono::duration_cast<std::chrono::seconds>(kRecordRetention));
}

}  // namespace

std::vector<std::string> expired_operations(std::vector<EndedOperation> ended, TimePoint now) {
  // Newest first, so that the failed ones beyond the bound are the oldest.
  std::sort(ended.begin(), ended.end(), [](const EndedOperation& a, const EndedOperation& b) {
    return std::tie(b.completion, a.name) < std::tie(a.completion, b.name);
  });
  std::vector<std::string> out;
  std::size_t failed_kept = 0;
  for (const EndedOperation& e : ended) {
    if (now >= expiry(e)) {
      out.push_back(e.name);
    } else if (failed(e) && ++failed_kept > kMaxFailedRecords) {
      out.push_back(e.name);
    }
  }
  return out;
}

std::optional<TimePoint> next_expiry(const std::vector<EndedOperation>& ended) {
  std::optional<TimePoint> next;
  for (const EndedOperation& e : ended) {
    if (!next || expiry(e) < *next) next = expiry(e);
  }
  return next;
}

}  // namespace respool::policy
