#pragma once
// The agent's /metrics: what each check found and how long it took, its own read failures, the
// per-device health readings, and the agent's writes (respool_node_*). The documents' usage
// metrics (ma_*) are usage_metrics.hpp's.

#include <set>
#include <string>
#include <vector>

#include "agent/checker.hpp"
#include "agent/report/conditions.hpp"
#include "operator/runtime/metrics.hpp"

namespace respool::agent {

class AgentMetrics {
 public:
  explicit AgentMetrics(runtime::Registry& registry);
  void observe(const PeriodResult& period);
  void observe_write(const ConditionPlan& plan);
  void observe_write_error();

 private:
  void observe_gpus(const GpuReadings& r);
  void observe_npus(const NpuReadings& r);

  runtime::GaugeFamily& failures_;         // {check, code}: faults found now
  runtime::CounterFamily& check_errors_;   // {check, what}: readings the check could not take
  runtime::HistogramFamily& durations_;    // {check}
  runtime::GaugeFamily& gpu_ecc_;          // {gpu, uuid, type}
  runtime::GaugeFamily& gpu_retired_;      // {gpu, uuid, cause}
  runtime::GaugeFamily& gpu_temperature_;  // {gpu, uuid}
  runtime::GaugeFamily& gpu_power_;        // {gpu, uuid}
  runtime::GaugeFamily& npu_health_;       // {npu}
  runtime::GaugeFamily& npu_hbm_pages_;    // {npu}
  runtime::GaugeFamily& ib_active_;        // {device, port}
  runtime::GaugeFamily& clock_error_;      // seconds
  runtime::CounterFamily& writes_;         // {kind}: change | heartbeat | error
  std::set<std::vector<std::string>> failure_keys_;  // children set last period
};

}  // namespace respool::agent
