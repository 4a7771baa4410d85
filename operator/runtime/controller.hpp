#pragma once
// A controller: a work queue of keys, N workers, and a Reconciler — one function from a key to
// a result — as in controller-runtime. Informer events of the primary resource enqueue its key;
// events of secondary resources are mapped to primary keys (a Node event → its pool's key).

#include <atomic>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "operator/runtime/clock.hpp"
#include "operator/runtime/informer.hpp"
#include "operator/runtime/metrics.hpp"
#include "operator/runtime/work_queue.hpp"
#include "operator/runtime/workqueue_metrics.hpp"

namespace respool::runtime {

struct ReconcileResult {
  bool requeue = false;      // again soon, with the queue's per-key backoff
  Duration requeue_after{};  // again after this long (wins over requeue)
  static ReconcileResult done() { return {}; }
  static ReconcileResult after(Duration d) { return {false, d}; }
};

// An error makes the controller retry the key with exponential backoff.
using Reconciler =
    std::function<std::expected<ReconcileResult, std::string>(const std::string& key)>;

// controller-runtime's controller metrics, registered once per registry.
class ControllerMetrics {
 public:
  explicit ControllerMetrics(Registry& registry);
  CounterFamily& reconcile_total;   // {controller, result}
  CounterFamily& reconcile_errors;  // {controller}
  HistogramFamily& reconcile_time;  // {controller}
  GaugeFamily& active_workers;      // {controller}
  GaugeFamily& max_concurrent;      // {controller}
};

struct ControllerOptions {
  std::string name;
  int workers = 1;
  ControllerMetrics* metrics = nullptr;       // optional
  WorkQueueMetrics* queue_metrics = nullptr;  // optional
  std::unique_ptr<RateLimiter> rate_limiter;  // null: client-go's default
};

class Controller {
 public:
  Controller(Clock& clock, Reconciler reconciler, ControllerOptions options);
  ~Controller();

  const std::string& name() const { return name_; }
  WorkQueue& queue() { return *queue_; }
  void enqueue(const std::string& key) { queue_->add(key); }

  // Enqueues the keys `map` gives for every add, update and delete the informer sees.
  // Default: the object's own key.
  template <class T>
  void watch(Informer<T>& informer,
             std::function<std::vector<std::string>(const T&)> map = nullptr) {
    if (!map) map = [](const T& o) { return std::vector<std::string>{o.meta.key()}; };
    auto enqueue_all = [this, map](const T& o) {
      for (const auto& key : map(o))
        queue_->add(key);
    };
    typename Informer<T>::Handlers h;
    h.on_add = [enqueue_all](const auto& p) { enqueue_all(*p); };
    h.on_update = [enqueue_all](const auto& old, const auto& now) {
      enqueue_all(*old);
      enqueue_all(*now);
    };
    h.on_delete = [enqueue_all](const auto& p) { enqueue_all(*p); };
    informer.add_handlers(std::move(h));
  }

  // Starts the workers.
  void start();
  // Stops intake, lets in-flight reconciles finish, joins the workers.
  void stop();

 private:
  void worker();
  void process(const std::string& key);

  Clock& clock_;
  Reconciler reconciler_;
  std::string name_;
  int workers_;
  ControllerMetrics* metrics_;
  std::unique_ptr<WorkQueue> queue_;
  std::vector<std::thread> threads_;
  std::atomic<bool> started_{false};
};

}  // namespace respool::runtime
