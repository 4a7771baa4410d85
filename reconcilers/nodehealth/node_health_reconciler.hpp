#pragma once
// Observe a pool node (its agent conditions, taints, annotations, allocatable), decide with
// policy/node_health.hpp, act with one merge patch guarded by its resourceVersion, report with
// events on the node and its pool and a metric of stale nodes.

#include <chrono>
#include <expected>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/node_health.hpp"
#include "reconcilers/reconcile_error.hpp"

namespace respool::reconcilers {

class NodeHealthReconciler {
 public:
  // `nodes`: the shared node cache, which keeps the agent's condition types
  // (policy::kAgentConditionTypes, shared_caches.cpp).
  NodeHealthReconciler(Context& ctx, runtime::Informer<kube::Node>& nodes,
                       runtime::Registry& metrics, std::chrono::seconds heartbeat_period);
  Outcome<runtime::ReconcileResult> reconcile(const std::string& name);

  // The agent's conditions of a cached node.
  static std::vector<policy::AgentCondition> agent_conditions(const kube::Node& node);

 private:
  void report(const kube::Node& node, const policy::NodeView& view,
              const policy::NodeHealthDecision& decision);
  void count_stale(const std::string& node, const std::string& pool, bool stale);

  Context& ctx_;
  runtime::Informer<kube::Node>& nodes_;
  std::chrono::seconds heartbeat_period_;
  runtime::GaugeFamily& stale_nodes_;   // {pool}
  runtime::CounterFamily& isolations_;  // {code, action}
  std::mutex mu_;
  std::map<std::string, std::string> stale_;  // node -> pool, while its findings are stale
};

}  // namespace respool::reconcilers
