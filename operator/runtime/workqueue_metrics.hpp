#pragma once
// The workqueue_* metrics of client-go, exported as controller-runtime does (labels name and
// controller, both the queue's name), fed by each queue through its QueueMetrics hooks.
//
//   WorkQueueMetrics workqueue_metrics(registry);
//   WorkQueue queue(clock, default_controller_rate_limiter(clock),
//                   workqueue_metrics.for_queue("resourcepool"));

#include <string>

#include "operator/runtime/metrics.hpp"
#include "operator/runtime/queue_metrics.hpp"

namespace respool::runtime {

class WorkQueueMetrics {
 public:
  // Registers the workqueue_* families in `registry`, which must outlive this provider and
  // every queue built with it.
  explicit WorkQueueMetrics(Registry& registry);

  // Hooks for the queue `name`. Its series exist (at 0) from this call on. unfinished work and
  // the longest running processor are computed from in-flight keys at each scrape.
  QueueMetricsFactory for_queue(const std::string& name);

 private:
  Registry& registry_;
  GaugeFamily& depth_;
  CounterFamily& adds_;
  HistogramFamily& queue_duration_;
  HistogramFamily& work_duration_;
  GaugeFamily& unfinished_work_;
  GaugeFamily& longest_running_;
  CounterFamily& retries_;
};

}  // namespace respool::runtime
