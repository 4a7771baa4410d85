#include "operator/runtime/manager.hpp"

#include <malloc.h>
#include <unistd.h>

#include <random>

#include "operator/runtime/cache_sync.hpp"
#include "operator/runtime/log.hpp"

namespace respool::runtime {

std::string default_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "respool");
  std::random_device rd;
  std::uniform_int_distribution<int> hex(0, 15);
  std::string suffix;
  for (int i = 0; i < 8; ++i)
    suffix += "0123456789abcdef"[hex(rd)];
  return std::string(host) + "_" + suffix;
}

kube::Result<std::unique_ptr<Manager>> Manager::create(ManagerOptions options) {
  auto m = std::make_unique<Manager>(Key{});
  if (options.clock) {
    m->clock_ = options.clock;
  } else {
    m->own_clock_ = std::make_unique<RealClock>();
    m->clock_ = m->own_clock_.get();
  }
  m->identity_ = options.identity.empty() ? default_identity() : options.identity;

  // rest_client_* metrics as client-go names them.
  auto& requests =
      m->registry_.counter("rest_client_requests_total",
                           "Number of HTTP requests, partitioned by status code, method, and host.",
                           {"code", "method", "host"});
  auto& latency =
      m->registry_.histogram("rest_client_request_duration_seconds",
                             "Request latency in seconds. Broken down by verb, and host.",
                             {"verb", "host"}, exponential_buckets(0.001, 2, 10));
  auto previous = options.client.observe;
  options.client.observe = [&requests, &latency, previous](std::string_view method,
                                                           std::string_view host, int code,
                                                           double seconds) {
    requests
        .with(
            {code == 0 ? "<error>" : std::to_string(code), std::string(method), std::string(host)})
        ->inc();
    latency.with({std::string(method), std::string(host)})->observe(seconds);
    if (previous) previous(method, host, code, seconds);
  };
  auto client = kube::Client::create(options.cluster, options.client);
  if (!client) return std::unexpected(client.error());
  m->client_ = std::move(*client);
  m->queue_metrics_ = std::make_unique<WorkQueueMetrics>(m->registry_);
  m->controller_metrics_ = std::make_unique<ControllerMetrics>(m->registry_);
  EventRecorderOptions events;
  events.reporting_instance = m->identity_;
  m->events_ = std::make_unique<EventRecorder>(*m->client_, *m->clock_, events);
  m->options_ = std::move(options);
  return m;
}

Manager::~Manager() {
  stop();
  for (auto& c : controllers_)
    c->stop();
  if (elector_) elector_->stop();
  for (auto& i : informers_)
    i->stop();
  if (events_) events_->stop();
}

Controller& Manager::add_controller(Reconciler reconciler, ControllerOptions options) {
  if (!options.metrics) options.metrics = controller_metrics_.get();
  if (!options.queue_metrics) options.queue_metrics = queue_metrics_.get();
  controllers_.push_back(
      std::make_unique<Controller>(*clock_, std::move(reconciler), std::move(options)));
  return *controllers_.back();
}

bool Manager::caches_synced() const {
  return synced_.load();
}

bool Manager::leadership_known() const {
  if (!options_.leader_elect) return true;
  return elector_ && elector_->leadership_known();
}

bool Manager::is_leader() const {
  if (!options_.leader_elect) return true;
  return elector_ && elector_->is_leader();
}

void Manager::stop() {
  {
    std::lock_guard lock(mu_);
    stop_requested_ = true;
  }
  cv_.notify_all();
}

void Manager::start_controllers() {
  for (auto& c : controllers_)
    c->start();
}

std::vector<std::string> Manager::unsynced_caches() const {
  SyncHints hints{options_.cluster.server, options_.install_crd_hint};
  std::vector<std::string> out;
  for (const auto& i : informers_) {
    if (!i->has_synced()) out.push_back(explain_unsynced(i->resource(), i->last_failure(), hints));
  }
  return out;
}

std::string Manager::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

namespace {

std::string joined(const std::vector<std::string>& reasons) {
  std::string out;
  for (const auto& r : reasons)
    out += (out.empty() ? "" : "; ") + r;
  return out;
}

}  // namespace

bool Manager::wait_for_caches() {
  // Every cache before anything reconciles (controller-runtime's WaitForCacheSync); the ones
  // still missing are logged with their reasons every report period, not only at the timeout.
  const TimePoint deadline = clock_->now() + options_.cache_sync_timeout;
  TimePoint next_report = clock_->now() + options_.cache_sync_report_period;
  std::unique_lock lock(mu_);
  while (!stop_requested_) {
    lock.unlock();
    std::vector<std::string> missing = unsynced_caches();
    lock.lock();
    if (missing.empty()) return true;
    const TimePoint now = clock_->now();
    if (now >= deadline) {
      for (const auto& reason : missing)
        log::error("manager", "cache did not sync", {{"reason", reason}});
      const auto seconds =
          std::chrono::duration_cast<std::chrono::seconds>(options_.cache_sync_timeout).count();
      failure_ = "caches did not sync within " + std::to_string(seconds) +
                 "s (--cache-sync-timeout): " + joined(missing);
      log::error("manager", "caches did not sync in time", {{"reason", failure_}});
      return false;
    }
    if (now >= next_report) {
      log::warn("manager", "waiting for caches to sync", {{"missing", missing}});
      next_report = now + options_.cache_sync_report_period;
    }
    clock_->wait_for(cv_, lock, std::chrono::milliseconds(50), [this] { return stop_requested_; });
  }
  return false;
}

int Manager::run() {
  events_->start();
  for (auto& i : informers_)
    i->start();
  if (!wait_for_caches()) {
    std::lock_guard lock(mu_);
    return stop_requested_ && failure_.empty() ? 0 : 1;
  }
  // The first lists' pages and decode buffers are freed now; glibc keeps freed memory in its
  // arenas until asked, so without this the process holds them as RSS for good.
  malloc_trim(0);
  synced_ = true;
  log::info("manager", "caches synced", {{"informers", informers_.size()}});

  auto& master =
      registry_.gauge("leader_election_master_status",
                      "Gauge of if the reporting system is master of the relevant lease, 0 "
                      "indicates backup, 1 indicates master. 'name' is the string used to "
                      "identify the lease. Please make sure to group by name.",
                      {"name"});
  if (options_.leader_elect) {
    auto gauge = master.with({options_.leader_election_id});
    gauge->set(0);
    LeaderElectionConfig config;
    config.lease_namespace = options_.leader_election_namespace;
    config.lease_name = options_.leader_election_id;
    config.identity = identity_;
    config.lease_duration = options_.lease_duration;
    config.renew_deadline = options_.renew_deadline;
    config.retry_period = options_.retry_period;
    LeaderElector::Callbacks callbacks;
    callbacks.on_started_leading = [this, gauge] {
      gauge->set(1);
      {
        std::lock_guard lock(mu_);
        leading_ = true;
      }
      start_controllers();
    };
    callbacks.on_stopped_leading = [this, gauge] {
      gauge->set(0);
      std::lock_guard lock(mu_);
      if (!stop_requested_) {
        lost_ = true;
        failure_ = "lost the leader-election lease " + options_.leader_election_namespace + "/" +
                   options_.leader_election_id;
      }
      cv_.notify_all();
    };
    elector_ = std::make_unique<LeaderElector>(*client_, *clock_, config, callbacks);
    elector_->start();
  } else {
    start_controllers();
  }

  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return stop_requested_ || lost_; });
  if (lost_) {
    // Stop reconciling at once: no key is handed out any more; in-flight work is abandoned to
    // the process exit that follows (controller-runtime exits as well).
    for (auto& c : controllers_)
      c->queue().shutdown();
    return 1;
  }
  lock.unlock();
  log::info("manager", "stopping: finishing in-flight reconciles");
  for (auto& c : controllers_)
    c->stop();
  if (elector_) elector_->stop();  // releases the lease
  for (auto& i : informers_)
    i->stop();
  events_->stop();
  log::info("manager", "stopped");
  return 0;
}

}  // namespace respool::runtime
