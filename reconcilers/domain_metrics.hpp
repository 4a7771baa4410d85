#pragma once
// respool's own metrics: respool_pool_nodes{pool,flavor,state}, respool_pool_phase{pool,phase},
// respool_free_nodes{flavor,zone}, respool_operations_total{pool,operation,result}; for node
// operations respool_node_operations_total{type,result}, respool_nodes_in_operation{pool,type},
// respool_replacements_in_window{pool}, respool_replacement_limit{pool} (N1) and
// respool_concurrent_replacement_limit{pool} (N2); for driver upgrades
// respool_driver_upgrade_nodes{pool,state} (every state of the node machine, 0 when none); for
// training jobs respool_job_restarts_total{pool,recover}, respool_job_hangs_total{pool} and
// respool_fault_tolerant_jobs{pool}.

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "operator/runtime/metrics.hpp"
#include "reconcilers/policy/node_operation_ledger.hpp"

namespace respool::reconcilers {

class DomainMetrics {
 public:
  explicit DomainMetrics(runtime::Registry& registry);

  // Replaces the pool's node counts: state → count per flavor.
  void set_pool_nodes(const std::string& pool,
                      const std::map<std::string, std::map<std::string, int>>& by_flavor_state);
  // One-hot phase gauge (1 for the current phase, 0 for the others); also makes the pool's
  // training-job series, at 0 until a job restarts or hangs.
  void set_pool_phase(const std::string& pool, const std::string& phase);
  void forget_pool(const std::string& pool);
  // Replaces every free-node count: (flavor, zone) → count.
  void set_free_nodes(const std::map<std::pair<std::string, std::string>, int>& counts);
  void count_operation(const std::string& pool, const std::string& operation,
                       const std::string& result);
  // A NodeOperation ended: type Replace|Reset|Delete, result Succeeded|Failed|Rejected.
  void count_node_operation(const std::string& type, const std::string& result);
  // Nodes of the pool in an operation, by type.
  void set_nodes_in_operation(const std::string& pool, const std::map<std::string, int>& by_type);
  void set_node_operation_budget(const std::string& pool, const policy::Budget& budget);
  // The pool's GPU/NPU nodes by driver-upgrade state (the label's value); states not given
  // are 0. nullopt (the pool sets no driver) removes the pool's series.
  void set_driver_upgrade_nodes(const std::string& pool,
                                const std::optional<std::map<std::string, int>>& by_state);
  // A training job restarted (recover: proc_restart, job_reschedule, ...) or found hung.
  void count_job_restart(const std::string& pool, const std::string& recover);
  void count_job_hang(const std::string& pool);
  // Fault-tolerant jobs by pool; pools not given go to 0.
  void set_fault_tolerant_jobs(const std::map<std::string, int>& by_pool);

 private:
  runtime::GaugeFamily& pool_nodes_;
  runtime::GaugeFamily& pool_phase_;
  runtime::GaugeFamily& free_nodes_;
  runtime::CounterFamily& operations_;
  runtime::CounterFamily& node_operations_;
  runtime::GaugeFamily& nodes_in_operation_;
  runtime::GaugeFamily& replacements_in_window_;
  runtime::GaugeFamily& replacement_limit_;
  runtime::GaugeFamily& concurrent_replacement_limit_;
  runtime::GaugeFamily& driver_upgrade_nodes_;
  runtime::CounterFamily& job_restarts_;
  runtime::CounterFamily& job_hangs_;
  runtime::GaugeFamily& fault_tolerant_jobs_;
  std::set<std::string> fault_tolerant_pools_;
  std::mutex mu_;
  std::map<std::string, std::set<std::vector<std::string>>> pool_series_;  // to remove on change
  std::set<std::vector<std::string>> free_series_;
};

}  // namespace respool::reconcilers
