#pragma once
// The ReplicaSet controller's decisions (pkg/controller/replicaset), pure; ReplicationControllers
// are the same controller over core/v1 objects whose selector is a map.
//
// - The active pods it owns (not Succeeded, not Failed, not being deleted) are counted against
//   spec.replicas; missing ones are created from the template (generateName "<name>-", the
//   template's labels, annotations and finalizers, a controller reference).
// - Extra pods are deleted in the order of controller.ActivePodsWithRanks: unscheduled before
//   scheduled, Pending before Unknown before Running, not ready before ready, lower
//   controller.kubernetes.io/pod-deletion-cost first, more colocated pods of the set on the node
//   first, ready more recently first and created more recently first (both compared in
//   logarithmic buckets of their age, as LogarithmicScaleDown does), more restarts first.
// - Status: replicas (active pods), fullyLabeledReplicas (labels match the template's),
//   readyReplicas, availableReplicas (ready for minReadySeconds), observedGeneration, and a
//   ReplicaFailure condition while creates or deletes fail. Counts are those seen before this
//   round's writes, as the real controller reports them.

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

struct ReplicaSetPlan {
  int create = 0;                                 // pods to create now
  std::vector<std::string> remove;                // pod names, in deletion order
  std::chrono::system_clock::duration recheck{};  // > 0: a pod becomes available then
};

// `pods`: the set's pods (claimed, pending writes laid over), active or not.
ReplicaSetPlan plan_replicaset(const nlohmann::json& set,
                               const std::vector<const nlohmann::json*>& pods,
                               std::chrono::system_clock::time_point now);

// The status to write. `failure`: the error of this round's creates or deletes ("" = none);
// `diff`: active pods minus spec.replicas at the start of the round (names the failure).
nlohmann::json replicaset_status(const nlohmann::json& set,
                                 const std::vector<const nlohmann::json*>& pods,
                                 const std::string& failure, int diff,
                                 std::chrono::system_clock::time_point now);

// The pod a set creates (controller.GetPodFromTemplate).
nlohmann::json replica_pod(const nlohmann::json& set, const std::string& api_version,
                           const std::string& kind);

// Pods ordered for deletion (the first are deleted first); `pods` are the candidates.
std::vector<const nlohmann::json*> deletion_order(const std::vector<const nlohmann::json*>& pods,
                                                  std::chrono::system_clock::time_point now);

}  // namespace respool::sandbox::sim
