#pragma once
// The agent's period: read the Node's flavor (when due), run the checks, export the readings,
// write the conditions. One thread; every wait in it is bounded (NVML and DCMI by their
// timeouts, the API by the client's), so that /healthz can tell a live loop from a stuck one.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

#include "agent/agent_metrics.hpp"
#include "agent/checker.hpp"
#include "agent/report/node_reporter.hpp"
#include "agent/usage_metrics.hpp"
#include "operator/runtime/clock.hpp"
#include "reconcilers/policy/catalog.hpp"

namespace respool::agent {

struct LoopOptions {
  runtime::Duration check_period = std::chrono::seconds(30);
  bool once = false;
};

class AgentLoop {
 public:
  AgentLoop(Checker& checker, NodeReporter& reporter, AgentMetrics& metrics,
            std::optional<policy::Catalog> catalog, runtime::Clock& clock, LoopOptions options);

  // Exports the usage metrics too, labelled with the node's pool (set before run()).
  void export_usage(UsageMetrics& usage) { usage_ = &usage; }
  // Runs until stop() (or one period with `once`).
  void run();
  void stop();
  // When the last period ended (zero before the first): /healthz compares it with the period.
  runtime::TimePoint last_period() const { return runtime::TimePoint(last_period_.load()); }
  bool reported_once() const { return reported_; }

 private:
  void period();

  Checker& checker_;
  NodeReporter& reporter_;
  AgentMetrics& metrics_;
  std::optional<policy::Catalog> catalog_;
  runtime::Clock& clock_;
  LoopOptions options_;
  UsageMetrics* usage_ = nullptr;
  Expectations expect_;
  std::string pool_;  // the node's respool.io/pool label, as last read
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::atomic<runtime::Duration> last_period_{};
  std::atomic<bool> reported_{false};
};

}  // namespace respool::agent
