#pragma once
// The StatefulSet controller's decisions (pkg/controller/statefulset), pure.
//
// - Revisions: the template is kept in a ControllerRevision "<name>-<hash>" whose data is
//   {"spec":{"template":{...,"$patch":"replace"}}} and whose labels are the template's plus
//   controller.kubernetes.io/hash; a template equal to an older revision's reuses that revision
//   with a higher number (a rollback). status.currentRevision stays until a rolling update has
//   replaced every pod; revisions beyond revisionHistoryLimit that no pod uses are deleted.
// - Pods are "<name>-<ordinal>" for ordinals 0..replicas-1, with hostname = the pod's name,
//   subdomain = serviceName, the labels controller-revision-hash, statefulset.kubernetes.io/
//   pod-name and apps.kubernetes.io/pod-index, and one volume per volumeClaimTemplate naming
//   the claim "<template>-<name>-<ordinal>". OrderedReady creates one pod at a time once its
//   predecessors run ready (and deletes from the highest ordinal, one at a time); Parallel
//   does all at once. Failed or Succeeded pods are deleted and made again.
// - RollingUpdate deletes, from the highest ordinal down to the partition, one pod whose
//   revision is not the update revision and waits for its replacement to run ready; pods below
//   the partition are made from the current revision. OnDelete replaces pods only when deleted.
//   maxUnavailable (alpha) and ordinals.start are not played.
// - Status: observedGeneration, replicas, readyReplicas, availableReplicas, currentReplicas,
//   updatedReplicas, currentRevision, updateRevision, collisionCount.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

struct StatefulSetPlan {
  std::optional<nlohmann::json> create_revision;    // the update revision, to create
  std::optional<nlohmann::json> renumber_revision;  // an older revision made the update one
  std::vector<nlohmann::json> create;               // pods, in order
  std::vector<std::string> remove;                  // pod names
  std::vector<std::string> remove_revisions;        // ControllerRevision names
  nlohmann::json status;
  std::chrono::system_clock::duration recheck{};  // > 0: a pod becomes available then
};

// `pods`: the set's pods; `revisions`: its ControllerRevisions.
StatefulSetPlan plan_statefulset(const nlohmann::json& set,
                                 const std::vector<const nlohmann::json*>& pods,
                                 const std::vector<const nlohmann::json*>& revisions,
                                 std::chrono::system_clock::time_point now);

// The PersistentVolumeClaims a pod of the set needs (volumeClaimTemplates), to create when
// missing.
std::vector<nlohmann::json> statefulset_claims(const nlohmann::json& set, int ordinal);

// The ordinal of a pod of the set ("web-3" → 3), or -1.
int statefulset_ordinal(const std::string& set_name, const std::string& pod_name);

}  // namespace respool::sandbox::sim
