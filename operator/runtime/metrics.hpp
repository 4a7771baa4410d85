#pragma once
// A thread-safe Prometheus registry: counter, gauge and histogram families with label names,
// their children by label values, collectors run at scrape time, and render() in the text
// exposition format 0.0.4 as client_golang writes it. There is no global registry: whoever owns
// the operator's metrics creates one and passes it on.
//
// Misuse (a bad metric or label name, the wrong number of label values, one name registered
// twice with different shapes, a negative counter increment) is a programming error and throws
// std::invalid_argument.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace respool::runtime {

class Counter {
 public:
  void inc(double by = 1.0);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void inc(double by = 1.0) { value_.fetch_add(by, std::memory_order_relaxed); }
  void dec(double by = 1.0) { value_.fetch_sub(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Histogram {
 public:
  // `upper_bounds` strictly increasing, without +Inf (always implied).
  explicit Histogram(std::shared_ptr<const std::vector<double>> upper_bounds);
  void observe(double v);

  struct Snapshot {
    std::vector<std::uint64_t> cumulative;  // one per upper bound, then +Inf (== count)
    std::uint64_t count = 0;
    double sum = 0.0;
  };
  Snapshot snapshot() const;
  const std::vector<double>& upper_bounds() const { return *upper_bounds_; }

 private:
  std::shared_ptr<const std::vector<double>> upper_bounds_;
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; the last is (max, +Inf]
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
};

enum class MetricType { kCounter, kGauge, kHistogram };

// What every family shares: its name, help, type, label names, and how it renders itself.
class FamilyBase {
 public:
  virtual ~FamilyBase() = default;
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  MetricType type() const { return type_; }
  // Label names in the order with() and remove() take their values.
  const std::vector<std::string>& label_names() const { return label_names_; }
  // Histogram upper bounds (empty for counters and gauges).
  const std::vector<double>& buckets() const { return *buckets_; }
  // Appends this family (HELP, TYPE and the samples of every child) to `out`; nothing when it
  // has no children.
  virtual void render(std::string& out) const = 0;

 protected:
  FamilyBase(std::string name, std::string help, MetricType type,
             std::vector<std::string> label_names, std::vector<double> buckets);
  // The label values reordered by label name: the order of the keys and of rendering.
  std::vector<std::string> sorted_key(const std::vector<std::string>& values) const;
  // `{a="x",b="y"` (unterminated; empty when there are no labels) for a key.
  std::string label_prefix(const std::vector<std::string>& key) const;
  void render_header(std::string& out) const;
  std::shared_ptr<const std::vector<double>> shared_buckets() const { return buckets_; }

 private:
  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;
  std::vector<std::size_t> by_name_;  // positions into label_names_, sorted by name
  std::shared_ptr<const std::vector<double>> buckets_;
};

// The children of one metric, one per distinct tuple of label values.
template <class Metric>
class Family final : public FamilyBase {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> buckets = {});
  // The child for these label values (in label_names() order), created at first use. A handle
  // stays usable after remove(), though it is no longer rendered: hold it on hot paths.
  std::shared_ptr<Metric> with(const std::vector<std::string>& label_values);
  // Forgets the child (a pool that is gone); false when there was none.
  bool remove(const std::vector<std::string>& label_values);
  std::size_t size() const;
  void render(std::string& out) const override;

 private:
  mutable std::mutex mutex_;
  std::map<std::vector<std::string>, std::shared_ptr<Metric>> children_;
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

extern template class Family<Counter>;
extern template class Family<Gauge>;
extern template class Family<Histogram>;

// Keeps a scrape-time collector registered; unregisters it when destroyed (and waits for a run
// of it in progress to finish). Harmless if the registry has gone first.
class CollectorRegistration {
 public:
  CollectorRegistration() = default;
  CollectorRegistration(CollectorRegistration&&) noexcept;
  CollectorRegistration& operator=(CollectorRegistration&&) noexcept;
  ~CollectorRegistration();

 private:
  friend class Registry;
  struct Set;
  CollectorRegistration(std::weak_ptr<Set> set, std::uint64_t id);
  void reset();
  std::weak_ptr<Set> set_;
  std::uint64_t id_ = 0;
};

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Registers a family, or returns the one of that name if it has the same type, help, labels
  // (and buckets). A family without labels has its one child from the start, so it renders 0.
  // The reference lives as long as the registry.
  CounterFamily& counter(const std::string& name, const std::string& help,
                         std::vector<std::string> label_names = {});
  GaugeFamily& gauge(const std::string& name, const std::string& help,
                     std::vector<std::string> label_names = {});
  HistogramFamily& histogram(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names, std::vector<double> buckets);

  // `update` runs at the start of every render(), to set values computed at scrape time (for
  // example gauges from in-flight work). It must not register or drop collectors itself.
  [[nodiscard]] CollectorRegistration add_collector(std::function<void()> update);

  // Every family with children, sorted by name, in text exposition format 0.0.4.
  std::string render() const;

 private:
  FamilyBase& add(std::unique_ptr<FamilyBase> family, const std::vector<double>* buckets);

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<FamilyBase>> families_;
  std::shared_ptr<CollectorRegistration::Set> collectors_;
};

// Bucket layouts, computed as client_golang computes them (so that `le` values match).
std::vector<double> exponential_buckets(double start, double factor, int count);
std::vector<double> linear_buckets(double start, double width, int count);
// client_golang's DefBuckets: .005 … 10.
std::vector<double> default_buckets();
// controller-runtime's controller_runtime_reconcile_time_seconds: 0.005 … 60.
std::vector<double> reconcile_time_buckets();
// client-go's workqueue durations: 1e-8 · 10^i for i in 0..9.
std::vector<double> workqueue_duration_buckets();

// Formats a sample value as Go's strconv.FormatFloat(v, 'g', -1, 64), with +Inf, -Inf, NaN.
std::string format_metric_value(double v);
// Escapes a label value: backslash, double quote and newline.
std::string escape_label_value(const std::string& v);

}  // namespace respool::runtime
