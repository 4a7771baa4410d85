#include "agent/agent_metrics.hpp"

#include <map>

namespace respool::agent {

AgentMetrics::AgentMetrics(runtime::Registry& r)
    : failures_(r.gauge("respool_node_check_failures",
                        "Faults the check finds now, by isolation code (one per device)",
                        {"check", "code"})),
      check_errors_(r.counter("respool_node_check_errors_total",
                              "Readings a check could not take (a missing library function, an "
                              "unreadable or garbage file), by what it tried",
                              {"check", "what"})),
      durations_(r.histogram("respool_node_check_duration_seconds",
                             "How long a check's readings took", {"check"},
                             runtime::default_buckets())),
      gpu_ecc_(r.gauge("respool_node_gpu_ecc_errors", "ECC error counts NVML reports",
                       {"gpu", "uuid", "type"})),
      gpu_retired_(r.gauge("respool_node_gpu_retired_pages", "Retired pages by cause",
                           {"gpu", "uuid", "cause"})),
      gpu_temperature_(
          r.gauge("respool_node_gpu_temperature_celsius", "GPU temperature", {"gpu", "uuid"})),
      gpu_power_(r.gauge("respool_node_gpu_power_watts", "GPU power draw", {"gpu", "uuid"})),
      npu_health_(r.gauge("respool_node_npu_health",
                          "DCMI device health: 0 normal, 1 minor, 2 major, 3 urgent", {"npu"})),
      npu_hbm_pages_(r.gauge("respool_node_npu_hbm_double_bit_isolated_pages",
                             "HBM double-bit isolated pages", {"npu"})),
      ib_active_(r.gauge("respool_node_infiniband_port_active",
                         "1 when the InfiniBand port is ACTIVE", {"device", "port"})),
      clock_error_(r.gauge("respool_node_clock_estimated_error_seconds",
                           "The kernel clock's estimated error (adjtimex)")),
      writes_(r.counter("respool_node_agent_condition_writes_total",
                        "nodes/status writes of the agent's conditions: change, heartbeat, error",
                        {"kind"})) {}

void AgentMetrics::observe(const PeriodResult& period) {
  std::map<std::vector<std::string>, double> faults;
  for (const auto& result : period.results) {
    const std::string check(check_name(result.family));
    for (const auto& f : result.faults)
      faults[{check, f.code}] += 1;
    for (const auto& f : result.failures)
      check_errors_.with({check, f.what})->inc();
  }
  // Codes that cleared go back to 0 (kept: a series that vanishes looks like a missing scrape).
  for (const auto& key : failure_keys_) {
    if (!faults.contains(key)) failures_.with(key)->set(0);
  }
  for (const auto& [key, count] : faults) {
    failures_.with(key)->set(count);
    failure_keys_.insert(key);
  }
  for (const auto& [family, seconds] : period.seconds) {
    durations_.with({std::string(check_name(family))})->observe(seconds);
  }
  observe_gpus(period.readings.gpu);
  observe_npus(period.readings.npu);
  for (const auto& p : period.readings.infiniband.ports) {
    ib_active_.with({p.device, p.port})->set(p.state.ends_with("ACTIVE") ? 1 : 0);
  }
  if (period.readings.clock.ok) {
    clock_error_.with({})->set(static_cast<double>(period.readings.clock.estimated_error_us) / 1e6);
  }
}

void AgentMetrics::observe_gpus(const GpuReadings& r) {
  for (const auto& d : r.devices) {
    const std::string gpu = std::to_string(d.index);
    auto set = [&](runtime::GaugeFamily& family, std::vector<std::string> labels, bool ok,
                   double value) {
      if (ok) family.with(labels)->set(value);
    };
    set(gpu_ecc_, {gpu, d.uuid, "volatile_uncorrected"}, d.ecc_volatile_uncorrected.ok(),
        static_cast<double>(d.ecc_volatile_uncorrected.value));
    set(gpu_ecc_, {gpu, d.uuid, "volatile_corrected"}, d.ecc_volatile_corrected.ok(),
        static_cast<double>(d.ecc_volatile_corrected.value));
    set(gpu_retired_, {gpu, d.uuid, "single_bit"}, d.retired_pages_single_bit.ok(),
        d.retired_pages_single_bit.value);
    set(gpu_retired_, {gpu, d.uuid, "double_bit"}, d.retired_pages_double_bit.ok(),
        d.retired_pages_double_bit.value);
    set(gpu_temperature_, {gpu, d.uuid}, d.temperature_celsius.ok(), d.temperature_celsius.value);
    set(gpu_power_, {gpu, d.uuid}, d.power_milliwatts.ok(), d.power_milliwatts.value / 1000.0);
  }
}

void AgentMetrics::observe_npus(const NpuReadings& r) {
  for (const auto& d : r.devices) {
    const std::string npu = std::to_string(d.card) + "/" + std::to_string(d.device);
    if (d.health.ok()) npu_health_.with({npu})->set(d.health.value);
    if (d.hbm_ecc.ok()) {
      npu_hbm_pages_.with({npu})->set(d.hbm_ecc.value.double_bit_isolated_pages_cnt);
    }
  }
}

void AgentMetrics::observe_write(const ConditionPlan& plan) {
  if (plan.patch.is_null()) return;
  writes_.with({plan.heartbeat_only ? "heartbeat" : "change"})->inc();
}

void AgentMetrics::observe_write_error() {
  writes_.with({"error"})->inc();
}

}  // namespace respool::agent
