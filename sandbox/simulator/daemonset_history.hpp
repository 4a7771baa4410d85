#pragma once
// The DaemonSet controller's ControllerRevisions (pkg/controller/daemon/update.go,
// constructHistory and cleanupHistory), pure: what `kubectl rollout history/undo daemonset`
// read and write.
// - The template is kept in a ControllerRevision "<name>-<hash>" (the hash of the pods'
//   controller-revision-hash label) whose data is {"spec":{"template":{..., "$patch":"replace"}}},
//   labelled as the template plus controller-revision-hash, annotated as the DaemonSet (so
//   kubernetes.io/change-cause shows in the history), owned by the DaemonSet.
// - A template equal to an older revision's reuses it with the next number (a rollback);
//   otherwise a new revision gets the next number.
// - Revisions beyond spec.revisionHistoryLimit (default 10) that no live pod runs, and that are
//   not the current one, are deleted, oldest first.
// Hash collisions (a revision of that name with other data) are not played: the revision is
// left as it is.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

struct DaemonSetHistoryPlan {
  std::optional<nlohmann::json> create;    // the current revision, to create
  std::optional<nlohmann::json> renumber;  // an older revision made the current one (whole)
  std::vector<std::string> remove;         // ControllerRevision names
};

// `revisions`: the ControllerRevisions the DaemonSet owns; `pods`: its pods; `hash`: the hash
// its pods of the current template carry.
DaemonSetHistoryPlan plan_daemonset_history(const nlohmann::json& daemonset,
                                            const std::vector<const nlohmann::json*>& revisions,
                                            const std::vector<const nlohmann::json*>& pods,
                                            const std::string& hash);

}  // namespace respool::sandbox::sim
