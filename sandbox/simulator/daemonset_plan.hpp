#pragma once
// The DaemonSet controller's decisions (pkg/controller/daemon), pure: which nodes should run a
// daemon pod, which pods to create and delete (manage + rolling update), and the status.
//
// - A node should run the pod when it matches the template's nodeSelector and required node
//   affinity and the pod tolerates its NoSchedule and NoExecute taints; a pod already there
//   may continue while it tolerates the NoExecute ones. The pod carries the tolerations the
//   real controller adds (not-ready and unreachable NoExecute; disk-, memory-, pid-pressure and
//   unschedulable NoSchedule; network-unavailable for hostNetwork).
// - Pods are created with spec.nodeName set. (The real controller sets a node affinity on
//   metadata.name and lets the scheduler bind; the outcome is the same pod on the same node,
//   except that here a node short of resources still gets it.)
// - Failed and Succeeded daemon pods are deleted (and replaced); extra pods on a node go, the
//   oldest stays. While a node's pod is terminating nothing new is created there.
// - updateStrategy OnDelete: old pods stay until deleted, replacements use the new template.
//   RollingUpdate (maxUnavailable: an int or a percentage of desiredNumberScheduled, rounded up;
//   default 1; 0 means 1): old pods are deleted while fewer than maxUnavailable are unavailable;
//   maxSurge is not played (treated as 0).

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

struct DaemonSetPlan {
  std::vector<std::string> create_on;             // node names, sorted
  std::vector<std::string> remove;                // pod names
  nlohmann::json status;                          // the DaemonSet's status as it should read
  std::chrono::system_clock::duration recheck{};  // > 0: minReadySeconds pending
};

struct NodeVerdict {
  bool should_run = false;
  bool should_continue = false;
};

// The template a daemon pod is made from: the DaemonSet's, with the automatic tolerations.
nlohmann::json daemon_pod_spec(const nlohmann::json& daemonset);
NodeVerdict node_should_run(const nlohmann::json& pod_spec, const nlohmann::json& node);

// The pod to create on `node`.
nlohmann::json daemon_pod(const nlohmann::json& daemonset, const std::string& node,
                          const std::string& hash);

// `pods`: the DaemonSet's pods (with pending writes laid over). `nodes`: every node.
DaemonSetPlan plan_daemonset(const nlohmann::json& daemonset,
                             const std::vector<const nlohmann::json*>& nodes,
                             const std::vector<const nlohmann::json*>& pods,
                             std::chrono::system_clock::time_point now);

// maxUnavailable resolved against the desired count (intstr rounded up; 0 becomes 1).
int max_unavailable(const nlohmann::json& daemonset, int desired);

// Ready for minReadySeconds (podutil.IsPodAvailable).
bool pod_available(const nlohmann::json& pod, int min_ready_seconds,
                   std::chrono::system_clock::time_point now);

}  // namespace respool::sandbox::sim
