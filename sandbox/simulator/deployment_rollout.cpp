#include <algorithm>
#include <cmath>

#include "sandbox/simulator/deployment_status.hpp"
#include "sandbox/simulator/deployment_sync.hpp"
#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim::deployment_detail {

// FindActiveOrLatest, then proportional scaling of the active sets (DeploymentController.scale).
void DeploymentSync::proportional_scale() {
  std::vector<Json*> old_sets = olds();
  std::sort(old_sets.begin(), old_sets.end(),
            [](const Json* a, const Json* b) { return created_before(*b, *a); });  // newest first
  std::vector<Json*> active;
  for (Json* s : old_sets)
    if (replicas_of(*s) > 0) active.push_back(s);
  if (new_ && replicas_of(sets_[*new_]) > 0) active.insert(active.begin(), &sets_[*new_]);
  Json* only = nullptr;
  if (active.size() == 1) {
    only = active.front();
  } else if (active.empty() && (new_ || !old_sets.empty())) {
    only = new_ ? &sets_[*new_] : old_sets.front();
  }
  if (only) {
    scale(*only, replicas(), true);
    return;
  }
  if (active.empty()) return;
  // A saturated new set: the old ones go to zero.
  if (new_) {
    const Json& rs = sets_[*new_];
    if (replicas_of(rs) == replicas() &&
        annotation(rs, kDesiredReplicas) == std::to_string(replicas())) {
      for (Json* s : active)
        if (s != &rs) scale(*s, 0, true);
      return;
    }
  }
  if (!rolling_update(d_)) return;
  int total = 0;
  for (Json* s : active)
    total += replicas_of(*s);
  const int allowed = replicas() > 0 ? replicas() + deployment_fenceposts(d_).surge : 0;
  const int to_add = allowed - total;
  // Larger sets first; on ties the newer first when growing, the older first when shrinking.
  std::stable_sort(active.begin(), active.end(), [&](const Json* a, const Json* b) {
    if (replicas_of(*a) != replicas_of(*b)) return replicas_of(*a) > replicas_of(*b);
    return to_add > 0 ? created_before(*b, *a) : created_before(*a, *b);
  });
  int added = 0;
  std::vector<int> sizes;
  for (Json* s : active) {
    int proportion = 0;
    if (to_add != 0 && replicas_of(*s) != 0 && to_add != added) {
      // getReplicaSetFraction
      int fraction = -replicas_of(*s);
      if (replicas() != 0) {
        const int deployment_size = replicas() + deployment_fenceposts(d_).surge;
        int annotated = 0;
        auto text = annotation(*s, kMaxReplicas);
        try {
          annotated = text ? std::stoi(*text) : 0;
        } catch (const std::exception&) {
          text.reset();
        }
        if (!text) annotated = static_cast<int>(int_at(d_, {"status", "replicas"}, 0));
        fraction = annotated == 0
                       ? 0
                       : static_cast<int>(std::lround(static_cast<double>(replicas_of(*s)) *
                                                      deployment_size / annotated)) -
                             replicas_of(*s);
      }
      const int left = to_add - added;
      proportion = to_add > 0 ? std::min(fraction, left) : std::max(fraction, left);
    }
    sizes.push_back(replicas_of(*s) + proportion);
    added += proportion;
  }
  for (std::size_t i = 0; i < active.size(); ++i) {
    if (i == 0 && to_add != 0) sizes[0] = std::max(0, sizes[0] + to_add - added);
    scale(*active[i], sizes[i], false);
  }
}

// sync(): scaling events and paused Deployments.
void DeploymentSync::sync_scaling() {
  find_sets(false);
  proportional_scale();
  if (at_path(d_, {"spec", "paused"}).is_boolean() && d_["spec"]["paused"].get<bool>()) cleanup();
  finish_status(false);
}

void DeploymentSync::rolling() {
  find_sets(true);
  Json& rs = sets_[*new_];
  const Fenceposts f = deployment_fenceposts(d_);
  // reconcileNewReplicaSet
  bool scaled = false;
  if (replicas_of(rs) > replicas()) {
    scaled = scale(rs, replicas(), true);
  } else if (replicas_of(rs) < replicas()) {
    int total = 0;
    for (const auto& s : sets_)
      total += replicas_of(s);
    const int max_total = replicas() + f.surge;
    if (total < max_total)
      scaled = scale(
          rs, replicas_of(rs) + std::min(max_total - total, replicas() - replicas_of(rs)), true);
  }
  if (scaled) return finish_status(true);
  // reconcileOldReplicaSets
  std::vector<Json*> active_old;
  for (Json* s : olds())
    if (replicas_of(*s) > 0) active_old.push_back(s);
  std::sort(active_old.begin(), active_old.end(),
            [](const Json* a, const Json* b) { return created_before(*a, *b); });
  int old_count = 0, all_count = 0;
  for (Json* s : active_old)
    old_count += replicas_of(*s);
  for (const auto& s : sets_)
    all_count += replicas_of(s);
  if (old_count > 0) {
    const int min_available = replicas() - f.unavailable;
    const int new_unavailable =
        replicas_of(rs) - static_cast<int>(int_at(rs, {"status", "availableReplicas"}, 0));
    const int max_scaled_down = all_count - min_available - new_unavailable;
    int scaled_down = 0;
    if (max_scaled_down > 0) {
      // cleanupUnhealthyReplicas: unavailable replicas of old sets first
      for (Json* s : active_old) {
        if (scaled_down >= max_scaled_down) break;
        const int unhealthy =
            replicas_of(*s) - static_cast<int>(int_at(*s, {"status", "availableReplicas"}, 0));
        if (replicas_of(*s) == 0 || unhealthy <= 0) continue;
        const int down = std::min(max_scaled_down - scaled_down, unhealthy);
        scale(*s, replicas_of(*s) - down, true);
        scaled_down += down;
      }
      // scaleDownOldReplicaSetsForRollingUpdate
      int available = 0;
      for (const auto& s : sets_)
        available += static_cast<int>(int_at(s, {"status", "availableReplicas"}, 0));
      if (available > min_available) {
        const int budget = available - min_available;
        int done = 0;
        for (Json* s : active_old) {
          if (done >= budget) break;
          if (replicas_of(*s) == 0) continue;
          const int down = std::min(replicas_of(*s), budget - done);
          scale(*s, replicas_of(*s) - down, true);
          done += down;
        }
        scaled_down += done;
      }
    }
    if (scaled_down > 0) return finish_status(true);
  }
  if (deployment_complete(d_, d_["status"])) cleanup();
  finish_status(true);
}

void DeploymentSync::recreate() {
  find_sets(false);
  bool scaled_down = false;
  for (Json* s : olds())
    if (replicas_of(*s) > 0) scaled_down = scale(*s, 0, true) || scaled_down;
  if (scaled_down) return finish_status(true);
  // oldPodsRunning: any pod of an old set not Succeeded or Failed (terminating ones count).
  std::set<std::string> old_uids;
  for (Json* s : olds()) {
    old_uids.insert(uid_of(*s));
    if (int_at(*s, {"status", "replicas"}, 0) > 0) return finish_status(true);
  }
  for (const Json* pod : pods_) {
    const Json* ref = controller_of(*pod);
    if (ref && old_uids.contains(ref->value("uid", "")) && !pod_terminal(*pod))
      return finish_status(true);
  }
  if (!new_) find_sets(true);
  scale(sets_[*new_], replicas(), true);
  if (deployment_complete(d_, d_["status"])) cleanup();
  finish_status(true);
}

// cleanupDeployment: old sets beyond revisionHistoryLimit, oldest revisions first, when scaled
// down and settled.
void DeploymentSync::cleanup() {
  const Json& limit_json = at_path(d_, {"spec", "revisionHistoryLimit"});
  if (!limit_json.is_number_integer()) return;
  std::vector<Json*> cleanable;
  for (Json* s : olds())
    if (!marked_for_deletion(*s)) cleanable.push_back(s);
  const auto excess = static_cast<std::int64_t>(cleanable.size()) - limit_json.get<std::int64_t>();
  if (excess <= 0) return;
  std::stable_sort(cleanable.begin(), cleanable.end(), [](const Json* a, const Json* b) {
    if (revision_of(*a) != revision_of(*b)) return revision_of(*a) < revision_of(*b);
    return created_before(*a, *b);
  });
  for (std::int64_t i = 0; i < excess; ++i) {
    const Json& s = *cleanable[static_cast<std::size_t>(i)];
    if (int_at(s, {"status", "replicas"}, 0) != 0 || replicas_of(s) != 0 ||
        int_at(s, {"metadata", "generation"}, 0) > int_at(s, {"status", "observedGeneration"}, 0))
      continue;
    plan_.remove.push_back(name_of(s));
  }
}

void DeploymentSync::finish_status(bool rollout) {
  std::vector<const Json*> sets = all();
  const Json* new_set = new_ ? &sets_[*new_] : nullptr;
  plan_.status = rollout ? rollout_status(sets, new_set, d_, now_, plan_.recheck)
                         : calculate_deployment_status(sets, new_set, d_, now_);
}

}  // namespace respool::sandbox::sim::deployment_detail
