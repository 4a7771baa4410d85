#pragma once
// P8: the events a pool's status change records, with the source documents' exact wording:
//   PoolStatusChange           "Pool status changed, from Running to Abnormal."
//   PoolResourcesStatusChange  "Pool resources status changed, available/abnormal/creating/
//                               queuing count from 1/1/0/0 to 2/0/0/0."
// Type Warning when the new state is worse (the documents' "Abnormal"), else Normal. A pool
// without a status yet reads as phase "None" and counts 0/0/0/0.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/pool_status.hpp"

namespace respool::policy {

struct PoolSummary {
  std::string phase;  // "" when the pool has no status yet
  int available = 0;
  int abnormal = 0;
  int creating = 0;
  int queuing = 0;
  int desired = 0;  // total + queuing − deleting: to tell a scale-in from a loss
  bool operator==(const PoolSummary&) const = default;
};

PoolSummary summarize(const PoolStatus& status);
// From a status as stored (the object's .status; null or {} for a new pool).
PoolSummary summary_from_status_json(const nlohmann::json& status);

struct PoolEvent {
  std::string type;  // "Normal" | "Warning"
  std::string reason;
  std::string message;
  bool operator==(const PoolEvent&) const = default;
};

// The events for the change from `before` to `after`: none, one or both, phase first.
std::vector<PoolEvent> pool_events(const PoolSummary& before, const PoolSummary& after);

}  // namespace respool::policy
