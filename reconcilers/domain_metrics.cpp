#include "reconcilers/domain_metrics.hpp"

#include "reconcilers/policy/driver_upgrade.hpp"
#include "reconcilers/policy/pool_status.hpp"
#include "reconcilers/policy/training_faults.hpp"

namespace respool::reconcilers {

namespace {

constexpr policy::UpgradeState kMetricUpgradeStates[] = {
    policy::UpgradeState::Required,
    policy::UpgradeState::CordonRequired,
    policy::UpgradeState::WaitForJobsRequired,
    policy::UpgradeState::PodDeletionRequired,
    policy::UpgradeState::DriverRestartRequired,
    policy::UpgradeState::ValidationRequired,
    policy::UpgradeState::UncordonRequired,
    policy::UpgradeState::Done,
    policy::UpgradeState::Failed};

constexpr policy::Recover kMetricRecoveries[] = {policy::Recover::ProcRestart,
                                                 policy::Recover::JobReschedule,
                                                 policy::Recover::JobRescheduleWithTaint};

}  // namespace

DomainMetrics::DomainMetrics(runtime::Registry& registry)
    : pool_nodes_(registry.gauge("respool_pool_nodes", "Nodes of a pool by flavor and state.",
                                 {"pool", "flavor", "state"})),
      pool_phase_(registry.gauge("respool_pool_phase",
                                 "The pool's phase: 1 for the current phase, 0 for the others.",
                                 {"pool", "phase"})),
      free_nodes_(registry.gauge("respool_free_nodes", "Free nodes (rule N9) by flavor and zone.",
                                 {"flavor", "zone"})),
      operations_(registry.counter("respool_operations_total",
                                   "Operations on pools by kind and result.",
                                   {"pool", "operation", "result"})),
      node_operations_(registry.counter("respool_node_operations_total",
                                        "NodeOperations ended, by type and result.",
                                        {"type", "result"})),
      nodes_in_operation_(registry.gauge("respool_nodes_in_operation",
                                         "Nodes of a pool in a NodeOperation, by type.",
                                         {"pool", "type"})),
      replacements_in_window_(
          registry.gauge("respool_replacements_in_window",
                         "Replacements started in the pool in the last 24 hours (N1).", {"pool"})),
      replacement_limit_(registry.gauge("respool_replacement_limit",
                                        "Replacements allowed in any 24 hours (N1).", {"pool"})),
      concurrent_replacement_limit_(registry.gauge("respool_concurrent_replacement_limit",
                                                   "Nodes that may be replaced at once (N2).",
                                                   {"pool"})),
      driver_upgrade_nodes_(registry.gauge(
          "respool_driver_upgrade_nodes",
          "GPU/NPU nodes of a pool by driver-upgrade state (respool.io/driver-upgrade-state).",
          {"pool", "state"})),
      job_restarts_(registry.counter("respool_job_restarts_total",
                                     "Training jobs restarted by respool, by recovery (J3-J6).",
                                     {"pool", "recover"})),
      job_hangs_(registry.counter("respool_job_hangs_total",
                                  "Training jobs found hung: every worker silent (J5).", {"pool"})),
      fault_tolerant_jobs_(registry.gauge(
          "respool_fault_tolerant_jobs",
          "Training jobs of a pool under respool's fault tolerance (running or restarting).",
          {"pool"})) {}

void DomainMetrics::set_pool_nodes(
    const std::string& pool,
    const std::map<std::string, std::map<std::string, int>>& by_flavor_state) {
  std::lock_guard lock(mu_);
  auto& series = pool_series_[pool];
  std::set<std::vector<std::string>> now;
  for (const auto& [flavor, states] : by_flavor_state) {
    for (const auto& [state, count] : states) {
      std::vector<std::string> labels{pool, flavor, state};
      pool_nodes_.with(labels)->set(count);
      now.insert(labels);
    }
  }
  for (const auto& old : series) {
    if (!now.contains(old)) pool_nodes_.remove(old);
  }
  series = std::move(now);
}

void DomainMetrics::set_pool_phase(const std::string& pool, const std::string& phase) {
  for (auto p :
       {policy::PoolPhase::Creating, policy::PoolPhase::Running, policy::PoolPhase::Scaling,
        policy::PoolPhase::Upgrading, policy::PoolPhase::Abnormal, policy::PoolPhase::Deleting,
        policy::PoolPhase::Failed}) {
    std::string name(policy::to_string(p));
    pool_phase_.with({pool, name})->set(name == phase ? 1 : 0);
  }
  // Every pool's training-job series exist from its first report, at 0 until something
  // happens: rate() and increase() see the first restart, and a dashboard has a line to show.
  for (auto recover : kMetricRecoveries)
    job_restarts_.with({pool, std::string(policy::to_string(recover))});
  job_hangs_.with({pool});
  fault_tolerant_jobs_.with({pool});
}

void DomainMetrics::forget_pool(const std::string& pool) {
  std::lock_guard lock(mu_);
  for (const auto& labels : pool_series_[pool])
    pool_nodes_.remove(labels);
  pool_series_.erase(pool);
  for (auto p :
       {policy::PoolPhase::Creating, policy::PoolPhase::Running, policy::PoolPhase::Scaling,
        policy::PoolPhase::Upgrading, policy::PoolPhase::Abnormal, policy::PoolPhase::Deleting,
        policy::PoolPhase::Failed}) {
    pool_phase_.remove({pool, std::string(policy::to_string(p))});
  }
  for (const char* type : {"Replace", "Reset", "Delete"})
    nodes_in_operation_.remove({pool, type});
  replacements_in_window_.remove({pool});
  for (auto state : kMetricUpgradeStates)
    driver_upgrade_nodes_.remove({pool, std::string(policy::to_string(state))});
  replacement_limit_.remove({pool});
  concurrent_replacement_limit_.remove({pool});
  for (auto recover : kMetricRecoveries)
    job_restarts_.remove({pool, std::string(policy::to_string(recover))});
  job_hangs_.remove({pool});
  fault_tolerant_jobs_.remove({pool});
  fault_tolerant_pools_.erase(pool);
}

void DomainMetrics::set_free_nodes(
    const std::map<std::pair<std::string, std::string>, int>& counts) {
  std::lock_guard lock(mu_);
  std::set<std::vector<std::string>> now;
  for (const auto& [key, count] : counts) {
    std::vector<std::string> labels{key.first, key.second};
    free_nodes_.with(labels)->set(count);
    now.insert(labels);
  }
  for (const auto& old : free_series_) {
    if (!now.contains(old)) free_nodes_.remove(old);
  }
  free_series_ = std::move(now);
}

void DomainMetrics::count_operation(const std::string& pool, const std::string& operation,
                                    const std::string& result) {
  operations_.with({pool, operation, result})->inc();
}

void DomainMetrics::count_node_operation(const std::string& type, const std::string& result) {
  node_operations_.with({type, result})->inc();
}

void DomainMetrics::set_nodes_in_operation(const std::string& pool,
                                           const std::map<std::string, int>& by_type) {
  for (const auto& [type, count] : by_type)
    nodes_in_operation_.with({pool, type})->set(count);
}

void DomainMetrics::set_node_operation_budget(const std::string& pool,
                                              const policy::Budget& budget) {
  replacements_in_window_.with({pool})->set(budget.replacements_in_window);
  replacement_limit_.with({pool})->set(budget.replacement_limit);
  concurrent_replacement_limit_.with({pool})->set(budget.concurrent_replacement_limit);
}

void DomainMetrics::set_driver_upgrade_nodes(
    const std::string& pool, const std::optional<std::map<std::string, int>>& by_state) {
  for (auto state : kMetricUpgradeStates) {
    const std::string name(policy::to_string(state));
    if (!by_state) {
      driver_upgrade_nodes_.remove({pool, name});
      continue;
    }
    auto it = by_state->find(name);
    driver_upgrade_nodes_.with({pool, name})->set(it == by_state->end() ? 0 : it->second);
  }
}

void DomainMetrics::count_job_restart(const std::string& pool, const std::string& recover) {
  job_restarts_.with({pool, recover})->inc();
}

void DomainMetrics::count_job_hang(const std::string& pool) {
  job_hangs_.with({pool})->inc();
}

void DomainMetrics::set_fault_tolerant_jobs(const std::map<std::string, int>& by_pool) {
  std::lock_guard lock(mu_);
  for (const auto& pool : fault_tolerant_pools_)
    if (!by_pool.contains(pool)) fault_tolerant_jobs_.with({pool})->set(0);
  for (const auto& [pool, count] : by_pool) {
    fault_tolerant_jobs_.with({pool})->set(count);
    fault_tolerant_pools_.insert(pool);
  }
}

}  // namespace respool::reconcilers
