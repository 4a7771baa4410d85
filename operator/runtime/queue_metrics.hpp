#pragma once
// What a WorkQueue reports as it runs, as client-go's queueMetrics: the queue calls these
// hooks and knows nothing of how (or whether) they are exported.

#include <functional>
#include <memory>
#include <string>

#include "operator/runtime/clock.hpp"

namespace respool::runtime {

class QueueMetrics {
 public:
  virtual ~QueueMetrics() = default;
  // `item` became dirty (it was not queued or waiting for done already).
  virtual void add(const std::string& item) = 0;
  // A worker took `item` from the queue.
  virtual void get(const std::string& item) = 0;
  // A worker finished `item`.
  virtual void done(const std::string& item) = 0;
  // An add_after or add_rate_limited was asked for.
  virtual void retry() = 0;
};

// Builds a queue's hooks on the queue's own clock (the queue calls it once, when constructed).
using QueueMetricsFactory = std::function<std::unique_ptr<QueueMetrics>(const Clock&)>;

}  // namespace respool::runtime
