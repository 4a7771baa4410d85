#pragma once
// P9 for node operations: the NodeOperation objects are the records of replaces, resets and
// deletes. Succeeded ones are kept 90 days after they end, Failed and Rejected ones 3 days and
// never more than 500 of them (the newest stay).

#include <string>
#include <vector>

#include "reconcilers/policy/node_operation_status.hpp"
#include "reconcilers/policy/records.hpp"

namespace respool::policy {

struct EndedOperation {
  std::string name;
  OperationPhase phase = OperationPhase::Succeeded;
  TimePoint completion{};
};

// The operations to delete now; `ended` holds only terminal ones.
std::vector<std::string> expired_operations(std::vector<EndedOperation> ended, TimePoint now);

// When the next of `ended` expires (to look again then), or nullopt.
std::optional<TimePoint> next_expiry(const std::vector<EndedOperation>& ended);

}  // namespace respool::policy
