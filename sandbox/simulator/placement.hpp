#pragma once
// The scheduler's decision for one pod, as kube-scheduler's default profile makes it, reduced
// to the filters a resource-pool cluster exercises:
//   NodeUnschedulable  spec.unschedulable, unless the pod tolerates
//   node.kubernetes.io/unschedulable TaintToleration    NoSchedule and NoExecute taints must be
//   tolerated. A node whose Ready
//                      condition is not True counts as carrying the not-ready (False) or
//                      unreachable (Unknown, absent) taint the lifecycle controller gives it.
//   NodeAffinity       spec.nodeSelector and required node affinity
//   NodeResourcesFit   requests of the pods on the node plus this one within allocatable, for
//                      every requested resource; pod count within allocatable "pods"
// A node is reported under the first filter it fails (as the framework stops there), with all
// of NodeResourcesFit's reasons. Among fitting nodes the least allocated wins (cpu and memory,
// NodeResourcesLeastAllocated, with the scheduler's non-zero defaults 100m / 200Mi), then the
// smallest name: deterministic, where the real scheduler picks at random among equals.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/kube/objects.hpp"

namespace respool::sandbox::sim {

struct NodeUsage {
  kube::ResourceList requested;  // sum over the non-terminal pods bound to the node
  std::int64_t pods = 0;
};

struct Placement {
  std::string node;     // "" when no node fits
  std::string message;  // "0/5 nodes are available: ..." when no node fits
};

// Why `node` cannot take the pod (the reason strings of the real plugins); empty = it fits.
std::vector<std::string> filter_node(const nlohmann::json& pod_spec,
                                     const kube::ResourceList& requests, const nlohmann::json& node,
                                     const NodeUsage& usage);

// 0..100, higher = more room left after placing `requests`.
std::int64_t least_allocated_score(const kube::ResourceList& requests, const nlohmann::json& node,
                                   const NodeUsage& usage);

using UsageLookup = std::function<NodeUsage(const std::string& node_name)>;
Placement place_pod(const nlohmann::json& pod, const std::vector<const nlohmann::json*>& nodes,
                    const UsageLookup& usage);

}  // namespace respool::sandbox::sim
