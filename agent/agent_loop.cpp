#include "agent/agent_loop.hpp"

#include "agent/expectations.hpp"
#include "operator/runtime/log.hpp"

namespace respool::agent {

AgentLoop::AgentLoop(Checker& checker, NodeReporter& reporter, AgentMetrics& metrics,
                     std::optional<policy::Catalog> catalog, runtime::Clock& clock,
                     LoopOptions options)
    : checker_(checker),
      reporter_(reporter),
      metrics_(metrics),
      catalog_(std::move(catalog)),
      clock_(clock),
      options_(options) {}

void AgentLoop::period() {
  if (auto labels = reporter_.node_labels(); labels) {
    if (catalog_) expect_ = expectations_for(*catalog_, *labels);
    auto pool = labels->find("respool.io/pool");
    pool_ = pool == labels->end() ? "" : pool->second;
  } else {
    runtime::log::warn("agent", "cannot read the node (checks go on)",
                       {{"node", reporter_.node_name()}, {"error", labels.error().describe()}});
  }
  auto result = checker_.run(expect_);
  metrics_.observe(result);
  if (usage_) usage_->observe(result.readings, {pool_, reporter_.node_name()});
  for (const auto& r : result.results) {
    for (const auto& f : r.failures) {
      runtime::log::warn("check", "reading failed",
                         {{"check", check_name(r.family)}, {"what", f.what}, {"detail", f.detail}});
    }
  }
  auto plan = reporter_.report(result.results);
  if (plan) {
    metrics_.observe_write(*plan);
    reported_ = true;
  } else {
    metrics_.observe_write_error();
    runtime::log::error("agent", "cannot write the node's conditions",
                        {{"node", reporter_.node_name()}, {"error", plan.error().describe()}});
  }
  last_period_ = clock_.now().time_since_epoch();
}

void AgentLoop::run() {
  for (;;) {
    const auto started = clock_.now();
    period();
    if (options_.once) return;
    std::unique_lock lock(mu_);
    if (clock_.wait_until(cv_, lock, started + options_.check_period, [&] { return stopping_; })) {
      return;
    }
  }
}

void AgentLoop::stop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  cv_.notify_all();
}

}  // namespace respool::agent
