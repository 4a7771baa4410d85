#include "sandbox/simulator/statefulset_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "sandbox/simulator/daemonset_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/template_hash.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

constexpr const char* kRevisionHashLabel = "controller.kubernetes.io/hash";
constexpr const char* kPodNameLabel = "statefulset.kubernetes.io/pod-name";
constexpr const char* kPodIndexLabel = "apps.kubernetes.io/pod-index";

Json revision_data(const Json& pod_template) {
  Json t = pod_template.is_object() ? pod_template : Json::object();
  t["$patch"] = "replace";
  return {{"spec", {{"template", t}}}};
}

Json template_of(const Json& revision) {
  Json t = at_path(revision, {"data", "spec", "template"});
  if (t.is_object()) t.erase("$patch");
  return t;
}

Json new_revision(const Json& set, std::int64_t number, std::int64_t collisions) {
  Json data = revision_data(at_path(set, {"spec", "template"}));
  const std::string hash =
      safe_encode(std::to_string(fnv1a32(data.dump() + std::to_string(collisions))));
  Json labels = at_path(set, {"spec", "template", "metadata", "labels"});
  if (!labels.is_object()) labels = Json::object();
  labels[kRevisionHashLabel] = hash;
  Json metadata = {
      {"name", name_of(set) + "-" + hash},
      {"namespace", namespace_of(set)},
      {"labels", labels},
      {"ownerReferences", Json::array({controller_reference(set, "apps/v1", "StatefulSet")})}};
  const Json& annotations = at_path(set, {"metadata", "annotations"});
  if (annotations.is_object() && !annotations.empty()) metadata["annotations"] = annotations;
  return {{"apiVersion", "apps/v1"},
          {"kind", "ControllerRevision"},
          {"metadata", metadata},
          {"data", data},
          {"revision", number}};
}

bool running_and_ready(const Json& pod) {
  return string_view_at(pod, {"status", "phase"}) == "Running" && pod_is_ready(pod);
}

bool running_and_available(const Json& pod, int min_ready, TimePoint now) {
  return string_view_at(pod, {"status", "phase"}) == "Running" &&
         pod_available(pod, min_ready, now);
}

bool healthy(const Json& pod) {
  return running_and_ready(pod) && !marked_for_deletion(pod);
}

std::string revision_label(const Json& pod) {
  return label(pod, kControllerRevisionHash).value_or("");
}

Json stateful_pod(const Json& set, const Json& pod_template, int ordinal,
                  const std::string& revision) {
  const std::string name = name_of(set) + "-" + std::to_string(ordinal);
  Json labels = at_path(pod_template, {"metadata", "labels"});
  if (!labels.is_object()) labels = Json::object();
  labels[kControllerRevisionHash] = revision;
  labels[kPodNameLabel] = name;
  labels[kPodIndexLabel] = std::to_string(ordinal);
  Json metadata = {
      {"name", name},
      {"generateName", name_of(set) + "-"},
      {"namespace", namespace_of(set)},
      {"labels", labels},
      {"ownerReferences", Json::array({controller_reference(set, "apps/v1", "StatefulSet")})}};
  for (const char* key : {"annotations", "finalizers"}) {
    const Json& v = at_path(pod_template, {"metadata", key});
    if ((v.is_object() || v.is_array()) && !v.empty()) metadata[key] = v;
  }
  Json spec = at_path(pod_template, {"spec"});
  if (!spec.is_object()) spec = Json::object();
  spec["hostname"] = name;
  const std::string service = string_at(set, {"spec", "serviceName"});
  if (!service.empty()) spec["subdomain"] = service;
  const Json& claims = at_path(set, {"spec", "volumeClaimTemplates"});
  if (claims.is_array() && !claims.empty()) {
    Json volumes = Json::array();
    std::set<std::string> claimed;
    for (const auto& claim : claims) {
      const std::string claim_name = string_at(claim, {"metadata", "name"});
      claimed.insert(claim_name);
      volumes.push_back({{"name", claim_name},
                         {"persistentVolumeClaim", {{"claimName", claim_name + "-" + name}}}});
    }
    if (spec.contains("volumes") && spec["volumes"].is_array())
      for (const auto& v : spec["volumes"])
        if (!claimed.contains(v.value("name", ""))) volumes.push_back(v);
    spec["volumes"] = volumes;
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
}

}  // namespace

int statefulset_ordinal(const std::string& set_name, const std::string& pod_name) {
  if (pod_name.size() <= set_name.size() + 1 || !pod_name.starts_with(set_name + "-")) return -1;
  const std::string digits = pod_name.substr(set_name.size() + 1);
  if (digits.size() > 9 || (digits.size() > 1 && digits[0] == '0')) return -1;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::vector<Json> statefulset_claims(const Json& set, int ordinal) {
  std::vector<Json> out;
  const Json& claims = at_path(set, {"spec", "volumeClaimTemplates"});
  if (!claims.is_array()) return out;
  const std::string pod = name_of(set) + "-" + std::to_string(ordinal);
  for (const auto& claim : claims) {
    Json pvc = {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}};
    pvc["metadata"] = {{"name", string_at(claim, {"metadata", "name"}) + "-" + pod},
                       {"namespace", namespace_of(set)}};
    Json labels = at_path(claim, {"metadata", "labels"});
    if (!labels.is_object()) labels = Json::object();
    const Json& match = at_path(set, {"spec", "selector", "matchLabels"});
    if (match.is_object()) labels.update(match);
    if (!labels.empty()) pvc["metadata"]["labels"] = labels;
    const Json& annotations = at_path(claim, {"metadata", "annotations"});
    if (annotations.is_object() && !annotations.empty())
      pvc["metadata"]["annotations"] = annotations;
    if (string_at(set, {"spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"}) ==
        "Delete") {
      Json owner = controller_reference(set, "apps/v1", "StatefulSet");
      owner.erase("controller");
      pvc["metadata"]["ownerReferences"] = Json::array({owner});
    }
    pvc["spec"] = at_path(claim, {"spec"});
    out.push_back(std::move(pvc));
  }
  return out;
}

StatefulSetPlan plan_statefulset(const Json& set, const std::vector<const Json*>& pods,
                                 const std::vector<const Json*>& revision_list, TimePoint now) {
  StatefulSetPlan plan;
  // The revisions: the update one (new, reused or renumbered) and the current one.
  std::vector<const Json*> revisions = revision_list;
  std::stable_sort(revisions.begin(), revisions.end(), [](const Json* a, const Json* b) {
    return int_at(*a, {"revision"}, 0) < int_at(*b, {"revision"}, 0);
  });
  const std::int64_t collisions = int_at(set, {"status", "collisionCount"}, 0);
  const std::int64_t next = revisions.empty() ? 1 : int_at(*revisions.back(), {"revision"}, 0) + 1;
  Json update = new_revision(set, next, collisions);
  const Json* equal = nullptr;
  for (const Json* r : revisions)
    if (semantic_equal(at_path(*r, {"data"}), update["data"])) equal = r;
  if (equal && equal == revisions.back()) {
    update = *equal;
  } else if (equal) {
    update = *equal;
    update["revision"] = next;
    plan.renumber_revision = update;
  } else {
    plan.create_revision = update;
  }
  const std::string update_name = name_of(update);
  Json current = update;
  const std::string current_name = string_at(set, {"status", "currentRevision"});
  for (const Json* r : revisions)
    if (name_of(*r) == current_name) current = *r;
  const Json current_template =
      current == update ? at_path(set, {"spec", "template"}) : template_of(current);

  const int replicas = static_cast<int>(int_at(set, {"spec", "replicas"}, 1));
  const int min_ready = static_cast<int>(int_at(set, {"spec", "minReadySeconds"}, 0));
  const bool monotonic = string_at(set, {"spec", "podManagementPolicy"}) != "Parallel";
  const std::string strategy = string_at(set, {"spec", "updateStrategy", "type"});
  const bool rolling = strategy.empty() || strategy == "RollingUpdate";
  const int partition =
      static_cast<int>(int_at(set, {"spec", "updateStrategy", "rollingUpdate", "partition"}, 0));
  std::vector<const Json*> replica(static_cast<std::size_t>(std::max(replicas, 0)), nullptr);
  std::vector<const Json*> condemned;
  for (const Json* p : pods) {
    const int ordinal = statefulset_ordinal(name_of(set), name_of(*p));
    if (ordinal < 0) continue;
    if (ordinal < replicas) {
      replica[static_cast<std::size_t>(ordinal)] = p;
    } else {
      condemned.push_back(p);
    }
  }
  std::sort(condemned.begin(), condemned.end(), [&](const Json* a, const Json* b) {
    return statefulset_ordinal(name_of(set), name_of(*a)) >
           statefulset_ordinal(name_of(set), name_of(*b));
  });
  const Json* first_unhealthy = nullptr;
  for (const Json* p : replica)
    if (p && !healthy(*p) && !first_unhealthy) first_unhealthy = p;
  for (auto it = condemned.rbegin(); it != condemned.rend(); ++it)
    if (!healthy(**it) && !first_unhealthy) first_unhealthy = *it;

  auto note_available = [&](const Json& pod) {
    const Json* ready = find_condition(pod, "Ready");
    if (!ready || min_ready <= 0 || !running_and_ready(pod)) return;
    auto since = time_at(*ready, {"lastTransitionTime"});
    if (!since) return;
    auto wait = *since + std::chrono::seconds(min_ready) - now;
    if (wait > decltype(wait){} && (plan.recheck == decltype(wait){} || wait < plan.recheck))
      plan.recheck = wait;
  };
  std::vector<std::string> made_revisions(replica.size());  // revision of pods made now
  const bool act = !marked_for_deletion(set);
  bool blocked = !act;
  for (std::size_t i = 0; i < replica.size() && !blocked; ++i) {
    const Json* pod = replica[i];
    const int ordinal = static_cast<int>(i);
    if (pod && pod_terminal(*pod)) {
      if (!marked_for_deletion(*pod)) plan.remove.push_back(name_of(*pod));
      blocked = monotonic;
    } else if (!pod) {
      const bool from_current = rolling && ordinal < partition;
      const std::string rev = from_current ? name_of(current) : update_name;
      plan.create.push_back(stateful_pod(
          set, from_current ? current_template : at_path(set, {"spec", "template"}), ordinal, rev));
      made_revisions[i] = rev;
      blocked = monotonic;
    } else if (marked_for_deletion(*pod)) {
      blocked = monotonic;
    } else if (!running_and_available(*pod, min_ready, now)) {
      note_available(*pod);
      blocked = monotonic;
    }
  }
  for (std::size_t i = 0; i < condemned.size() && !blocked; ++i) {
    const Json& pod = *condemned[i];
    if (marked_for_deletion(pod)) {
      blocked = monotonic;
      continue;
    }
    if (monotonic && &pod != first_unhealthy && !running_and_available(pod, min_ready, now)) {
      note_available(pod);
      blocked = true;
      continue;
    }
    plan.remove.push_back(name_of(pod));
    blocked = monotonic;
  }
  if (!blocked && rolling) {
    for (int target = replicas - 1; target >= partition && target >= 0; --target) {
      const Json* pod = replica[static_cast<std::size_t>(target)];
      const std::string rev = pod ? revision_label(*pod) : made_revisions[target];
      if (pod && rev != update_name && !marked_for_deletion(*pod)) {
        plan.remove.push_back(name_of(*pod));
        break;
      }
      if (!pod || !healthy(*pod)) break;
    }
  }

  // Status, from the pods as they are (creates and deletes of this round show next time).
  std::int64_t created = 0, ready = 0, available = 0, on_current = 0, on_update = 0;
  std::set<std::string> live = {name_of(current), update_name};
  for (const Json* p : pods) {
    if (statefulset_ordinal(name_of(set), name_of(*p)) < 0) continue;
    live.insert(revision_label(*p));
    if (!string_at(*p, {"status", "phase"}).empty()) ++created;
    if (running_and_ready(*p)) {
      ++ready;
      if (running_and_available(*p, min_ready, now)) ++available;
    }
    if (!string_at(*p, {"status", "phase"}).empty() && !marked_for_deletion(*p)) {
      if (revision_label(*p) == name_of(current)) ++on_current;
      if (revision_label(*p) == update_name) ++on_update;
    }
  }
  Json status = {{"observedGeneration", int_at(set, {"metadata", "generation"}, 0)},
                 {"replicas", created},
                 {"availableReplicas", available},
                 {"currentRevision", name_of(current)},
                 {"updateRevision", update_name},
                 {"collisionCount", collisions}};
  if (ready) status["readyReplicas"] = ready;
  if (on_current) status["currentReplicas"] = on_current;
  if (on_update) status["updatedReplicas"] = on_update;
  if (rolling && on_update == created && ready == created) {
    if (on_update) {
      status["currentReplicas"] = on_update;
    } else {
      status.erase("currentReplicas");
    }
    status["currentRevision"] = update_name;
  }
  const Json& conditions = at_path(set, {"status", "conditions"});
  if (conditions.is_array() && !conditions.empty()) status["conditions"] = conditions;
  plan.status = std::move(status);

  // History: revisions no pod uses beyond revisionHistoryLimit, oldest first.
  std::vector<const Json*> history;
  for (const Json* r : revisions)
    if (!live.contains(name_of(*r))) history.push_back(r);
  const auto limit = int_at(set, {"spec", "revisionHistoryLimit"}, 10);
  for (std::size_t i = 0; static_cast<std::int64_t>(history.size() - i) > limit; ++i)
    plan.remove_revisions.push_back(name_of(*history[i]));
  return plan;
}

}  // namespace respool::sandbox::sim
