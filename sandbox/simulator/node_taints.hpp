#pragma once
// The taints kube-controller-manager's node lifecycle controller keeps in step with a node's
// conditions (TaintNodesByCondition and taint-based evictions):
//   Ready=False            node.kubernetes.io/not-ready:NoSchedule and :NoExecute
//   Ready=Unknown          node.kubernetes.io/unreachable:NoSchedule and :NoExecute
//   MemoryPressure=True    node.kubernetes.io/memory-pressure:NoSchedule (Disk, PID alike)
//   NetworkUnavailable=True node.kubernetes.io/network-unavailable:NoSchedule
//   spec.unschedulable     node.kubernetes.io/unschedulable:NoSchedule
// Taints of those keys that the conditions no longer call for are removed. A node without a
// Ready condition gets no Ready taints (the controller has nothing to go by).

#include <chrono>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {

// The lifecycle taints the node's conditions and spec call for.
std::vector<Taint> condition_taints(const nlohmann::json& node);

// Makes node["spec"]["taints"] carry exactly those lifecycle taints, leaving every other taint
// as it is. NoExecute taints get timeAdded = now. Returns whether the taints changed.
bool mirror_condition_taints(nlohmann::json& node, std::chrono::system_clock::time_point now);

}  // namespace respool::sandbox::sim
