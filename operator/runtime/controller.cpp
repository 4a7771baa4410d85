#include "operator/runtime/controller.hpp"

#include "operator/runtime/log.hpp"

namespace respool::runtime {

ControllerMetrics::ControllerMetrics(Registry& registry)
    : reconcile_total(registry.counter("controller_runtime_reconcile_total",
                                       "Total number of reconciliations per controller",
                                       {"controller", "result"})),
      reconcile_errors(registry.counter("controller_runtime_reconcile_errors_total",
                                        "Total number of reconciliation errors per controller",
                                        {"controller"})),
      reconcile_time(registry.histogram("controller_runtime_reconcile_time_seconds",
                                        "Length of time per reconciliation per controller",
                                        {"controller"}, reconcile_time_buckets())),
      active_workers(registry.gauge("controller_runtime_active_workers",
                                    "Number of currently used workers per controller",
                                    {"controller"})),
      max_concurrent(registry.gauge("controller_runtime_max_concurrent_reconciles",
                                    "Maximum number of concurrent reconciles per controller",
                                    {"controller"})) {}

Controller::Controller(Clock& clock, Reconciler reconciler, ControllerOptions options)
    : clock_(clock),
      reconciler_(std::move(reconciler)),
      name_(std::move(options.name)),
      workers_(std::max(1, options.workers)),
      metrics_(options.metrics) {
  QueueMetricsFactory factory;
  if (options.queue_metrics) factory = options.queue_metrics->for_queue(name_);
  queue_ = std::make_unique<WorkQueue>(clock_, std::move(options.rate_limiter), factory);
  if (metrics_) {
    metrics_->max_concurrent.with({name_})->set(workers_);
    metrics_->active_workers.with({name_})->set(0);
    for (const char* result : {"success", "error", "requeue", "requeue_after"}) {
      metrics_->reconcile_total.with({name_, result});
    }
    metrics_->reconcile_errors.with({name_});
  }
}

Controller::~Controller() {
  stop();
}

void Controller::start() {
  if (started_.exchange(true)) return;
  for (int i = 0; i < workers_; ++i)
    threads_.emplace_back([this] { worker(); });
}

void Controller::stop() {
  queue_->shutdown_with_drain();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void Controller::worker() {
  while (auto key = queue_->get()) {
    process(*key);
    queue_->done(*key);
  }
}

void Controller::process(const std::string& key) {
  if (metrics_) metrics_->active_workers.with({name_})->inc();
  const auto start = std::chrono::steady_clock::now();
  std::expected<ReconcileResult, std::string> outcome;
  try {
    outcome = reconciler_(key);
  } catch (const std::exception& e) {
    // A reconciler bug must not take the worker down: report it and retry with backoff.
    outcome = std::unexpected(std::string("unexpected exception: ") + e.what());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string result;
  if (!outcome) {
    result = "error";
    queue_->add_rate_limited(key);
  } else if (outcome->requeue_after > Duration::zero()) {
    result = "requeue_after";
    queue_->forget(key);
    queue_->add_after(key, outcome->requeue_after);
  } else if (outcome->requeue) {
    result = "requeue";
    queue_->add_rate_limited(key);
  } else {
    result = "success";
    queue_->forget(key);
  }
  if (metrics_) {
    metrics_->active_workers.with({name_})->dec();
    metrics_->reconcile_total.with({name_, result})->inc();
    metrics_->reconcile_time.with({name_})->observe(seconds);
    if (!outcome) metrics_->reconcile_errors.with({name_})->inc();
  }
  if (!outcome) {
    log::error("controller", "reconcile failed",
               {{"controller", name_},
                {"key", key},
                {"duration", seconds},
                {"result", result},
                {"error", outcome.error()}});
  } else {
    log::info("controller", "reconciled",
              {{"controller", name_}, {"key", key}, {"duration", seconds}, {"result", result}});
  }
}

}  // namespace respool::runtime
