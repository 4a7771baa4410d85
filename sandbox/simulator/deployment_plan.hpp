#pragma once
// The Deployment controller's decisions (pkg/controller/deployment), pure: one sync of a
// Deployment over the ReplicaSets it owns, as syncDeployment makes it.
//
// - The new ReplicaSet is the oldest one whose template equals the Deployment's (ignoring the
//   pod-template-hash label); it is created as "<name>-<hash>" with the pod-template-hash label
//   on itself, its selector and its template, when a rollout needs it. Its
//   deployment.kubernetes.io/revision is one more than the old ones' (a reused old ReplicaSet
//   keeps its former revisions in revision-history), it carries desired-replicas and
//   max-replicas and the Deployment's own annotations (but kubectl's last-applied ones), and the
//   Deployment gets its revision.
// - RollingUpdate: the new ReplicaSet grows while all replicas stay within replicas + maxSurge,
//   old ones shrink (unhealthy replicas first) while availability stays above replicas -
//   maxUnavailable (intstr, surge rounded up, unavailable down; both 0 makes unavailable 1).
//   Recreate: old ReplicaSets go to 0, and once none of their pods runs the new one gets every
//   replica. A change of spec.replicas alone (or a paused Deployment) scales the active
//   ReplicaSets proportionally instead. Old ReplicaSets beyond revisionHistoryLimit that are
//   scaled to 0 are deleted once the rollout is complete.
// - Status: observedGeneration, replicas, updatedReplicas, readyReplicas, availableReplicas,
//   unavailableReplicas summed from the ReplicaSets' statuses; Available
//   (MinimumReplicasAvailable / MinimumReplicasUnavailable) and Progressing (NewReplicaSetCreated,
//   FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable, ProgressDeadlineExceeded,
//   DeploymentPaused / DeploymentResumed), ReplicaFailure copied from the ReplicaSets.
// Where the real controller writes several times in one sync (the revision, a condition, the
// status), the plan holds the last value of each.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

struct ControllerEvent {
  std::string type;  // Normal | Warning
  std::string reason;
  std::string message;
};

struct DeploymentPlan {
  std::optional<nlohmann::json> create;  // the new ReplicaSet
  std::vector<nlohmann::json> update;    // changed ReplicaSets, whole (resourceVersion as read)
  std::vector<std::string> remove;       // ReplicaSets beyond the revision history
  nlohmann::json annotations;            // null, or the Deployment's new metadata.annotations
  nlohmann::json status;                 // the Deployment's status as it should read
  std::vector<ControllerEvent> events;
  std::chrono::system_clock::duration recheck{};  // > 0: look again then (progress deadline)
};

// `sets`: the ReplicaSets the Deployment owns; `pods`: the pods those ReplicaSets own.
DeploymentPlan plan_deployment(const nlohmann::json& deployment,
                               const std::vector<const nlohmann::json*>& sets,
                               const std::vector<const nlohmann::json*>& pods,
                               std::chrono::system_clock::time_point now);

// The pod-template-hash: the template hashed as template_hash.hpp does, with the collision
// count (when set) mixed in as controller.ComputeHash does.
std::string pod_template_hash(const nlohmann::json& pod_template,
                              std::optional<std::int64_t> collision_count);

// Templates equal but for the pod-template-hash label (deploymentutil.EqualIgnoreHash).
bool equal_ignore_hash(const nlohmann::json& a, const nlohmann::json& b);

// maxSurge and maxUnavailable of a Deployment resolved against spec.replicas
// (deploymentutil.ResolveFenceposts); both 0 for Recreate.
struct Fenceposts {
  int surge = 0;
  int unavailable = 0;
};
Fenceposts deployment_fenceposts(const nlohmann::json& deployment);

}  // namespace respool::sandbox::sim
