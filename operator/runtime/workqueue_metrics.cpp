#include "operator/runtime/workqueue_metrics.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace respool::runtime {

namespace {

const std::vector<std::string> kLabels{"name", "controller"};

double seconds_between(TimePoint from, TimePoint to) {
  return std::chrono::duration<double>(to - from).count();
}

// The children of one queue's series.
struct QueueSeries {
  std::shared_ptr<Gauge> depth;
  std::shared_ptr<Counter> adds;
  std::shared_ptr<Histogram> queue_duration;
  std::shared_ptr<Histogram> work_duration;
  std::shared_ptr<Gauge> unfinished_work;
  std::shared_ptr<Gauge> longest_running;
  std::shared_ptr<Counter> retries;
};

// client-go's defaultQueueMetrics: remembers when each key was added and when its processing
// started, to observe how long it waited and how long it was worked on.
class RegistryQueueMetrics final : public QueueMetrics {
 public:
  RegistryQueueMetrics(QueueSeries series, const Clock& clock, Registry& registry)
      : series_(std::move(series)), clock_(clock) {
    // Registered last, so it is unregistered first: no scrape runs against a half-destroyed
    // object.
    registration_ = registry.add_collector([this] { update_unfinished_work(); });
  }

  void add(const std::string& item) override {
    const TimePoint now = clock_.now();
    std::lock_guard guard(mutex_);
    auto& times = times_[item];
    if (!times.added) times.added = now;
    series_.adds->inc();
    series_.depth->inc();
  }

  void get(const std::string& item) override {
    const TimePoint now = clock_.now();
    std::lock_guard guard(mutex_);
    series_.depth->dec();
    auto& times = times_[item];
    times.started = now;
    if (times.added) {
      series_.queue_duration->observe(seconds_between(*times.added, now));
      times.added.reset();
    }
  }

  void done(const std::string& item) override {
    const TimePoint now = clock_.now();
    std::lock_guard guard(mutex_);
    const auto it = times_.find(item);
    if (it == times_.end() || !it->second.started) return;
    series_.work_duration->observe(seconds_between(*it->second.started, now));
    it->second.started.reset();
    if (!it->second.added) times_.erase(it);
  }

  void retry() override { series_.retries->inc(); }

 private:
  void update_unfinished_work() {
    const TimePoint now = clock_.now();
    std::lock_guard guard(mutex_);
    double total = 0;
    double longest = 0;
    for (const auto& [item, times] : times_) {
      if (!times.started) continue;
      const double age = seconds_between(*times.started, now);
      total += age;
      longest = std::max(longest, age);
    }
    series_.unfinished_work->set(total);
    series_.longest_running->set(longest);
  }

  QueueSeries series_;
  const Clock& clock_;
  std::mutex mutex_;
  // When a key was added (until a worker gets it) and when its processing started (until
  // done); a key with neither has no entry.
  struct Times {
    std::optional<TimePoint> added;
    std::optional<TimePoint> started;
  };
  std::unordered_map<std::string, Times> times_;
  CollectorRegistration registration_;
};

}  // namespace

WorkQueueMetrics::WorkQueueMetrics(Registry& registry)
    : registry_(registry),
      depth_(registry.gauge("workqueue_depth", "Current depth of workqueue", kLabels)),
      adds_(registry.counter("workqueue_adds_total", "Total number of adds handled by workqueue",
                             kLabels)),
      queue_duration_(registry.histogram(
          "workqueue_queue_duration_seconds",
          "How long in seconds an item stays in workqueue before being requested", kLabels,
          workqueue_duration_buckets())),
      work_duration_(registry.histogram("workqueue_work_duration_seconds",
                                        "How long in seconds processing an item from workqueue "
                                        "takes.",
                                        kLabels, workqueue_duration_buckets())),
      unfinished_work_(registry.gauge(
          "workqueue_unfinished_work_seconds",
          "How many seconds of work has been done that is in progress and hasn't been observed "
          "by work_duration. Large values indicate stuck threads. One can deduce the number of "
          "stuck threads by observing the rate at which this increases.",
          kLabels)),
      longest_running_(registry.gauge(
          "workqueue_longest_running_processor_seconds",
          "How many seconds has the longest running processor for workqueue been running.",
          kLabels)),
      retries_(registry.counter("workqueue_retries_total",
                                "Total number of retries handled by workqueue", kLabels)) {}

QueueMetricsFactory WorkQueueMetrics::for_queue(const std::string& name) {
  const std::vector<std::string> values{name, name};
  QueueSeries series{depth_.with(values),           adds_.with(values),
                     queue_duration_.with(values),  work_duration_.with(values),
                     unfinished_work_.with(values), longest_running_.with(values),
                     retries_.with(values)};
  Registry* registry = &registry_;
  return [series = std::move(series), registry](const Clock& clock) {
    return std::make_unique<RegistryQueueMetrics>(series, clock, *registry);
  };
}

}  // namespace respool::runtime
