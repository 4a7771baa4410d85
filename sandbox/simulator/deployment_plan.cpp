#include "sandbox/simulator/deployment_plan.hpp"

#include <algorithm>

#include "sandbox/simulator/deployment_status.hpp"
#include "sandbox/simulator/deployment_sync.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/template_hash.hpp"

namespace respool::sandbox::sim {
namespace deployment_detail {

bool skip_annotation(const std::string& key) {
  static const std::set<std::string> skipped = {"kubectl.kubernetes.io/last-applied-configuration",
                                                kRevision,
                                                kRevisionHistory,
                                                kDesiredReplicas,
                                                kMaxReplicas,
                                                "deprecated.deployment.rollback.to"};
  return skipped.contains(key);
}

std::int64_t revision_of(const Json& rs) {
  auto text = annotation(rs, kRevision);
  if (!text || text->empty()) return 0;
  try {
    return std::stoll(*text);
  } catch (const std::exception&) {
    return 0;
  }
}

int replicas_of(const Json& object) {
  return static_cast<int>(int_at(object, {"spec", "replicas"}, 1));
}

Json& annotations_of(Json& object) {
  Json& a = object["metadata"]["annotations"];
  if (!a.is_object()) a = Json::object();
  return a;
}

bool rolling_update(const Json& d) {
  const std::string type = string_at(d, {"spec", "strategy", "type"});
  return type.empty() || type == "RollingUpdate";
}
std::vector<Json*> DeploymentSync::olds() {
  std::vector<Json*> out;
  for (std::size_t i = 0; i < sets_.size(); ++i)
    if (!new_ || *new_ != i) out.push_back(&sets_[i]);
  return out;
}

std::vector<const Json*> DeploymentSync::all() const {
  std::vector<const Json*> out;
  for (const auto& s : sets_)
    out.push_back(&s);
  return out;
}

void DeploymentSync::record_update(const Json& rs) {
  if (name_of(rs).empty()) return;  // the set being created: its create carries it
  updated_.insert(name_of(rs));
}

bool DeploymentSync::set_new_annotations(Json& rs, std::int64_t revision, bool exists) {
  bool changed = false;
  Json& annotations = annotations_of(rs);
  const Json& own = at_path(d_, {"metadata", "annotations"});
  if (own.is_object())
    for (auto it = own.begin(); it != own.end(); ++it)
      if (!skip_annotation(it.key()) && annotations.value(it.key(), Json()) != it.value()) {
        annotations[it.key()] = it.value();
        changed = true;
      }
  const bool had = annotations.contains(kRevision);
  const std::int64_t old_revision = revision_of(rs);
  if (old_revision < revision) {
    const std::string previous = annotations.value(kRevision, "");
    annotations[kRevision] = std::to_string(revision);
    changed = true;
    if (had) {  // a rollback to this set: keep its former revisions
      std::string history = annotations.value(kRevisionHistory, "");
      history = history.empty() ? previous : history + "," + previous;
      while (history.size() > kRevisionHistoryChars && history.find(',') != std::string::npos)
        history.erase(0, history.find(',') + 1);
      annotations[kRevisionHistory] = history;
    }
  }
  if (!exists) {
    const Fenceposts f = deployment_fenceposts(d_);
    annotations[kDesiredReplicas] = std::to_string(replicas());
    annotations[kMaxReplicas] = std::to_string(replicas() + f.surge);
    changed = true;
  }
  return changed;
}

void DeploymentSync::set_revision(const std::string& revision) {
  Json& annotations = annotations_of(d_);
  if (annotations.value(kRevision, "") == revision) return;
  annotations[kRevision] = revision;
  plan_.annotations = annotations;
}

void DeploymentSync::find_sets(bool create) {
  const Json& tmpl = at_path(d_, {"spec", "template"});
  new_.reset();
  for (std::size_t i = 0; i < sets_.size() && !new_; ++i)
    if (equal_ignore_hash(at_path(sets_[i], {"spec", "template"}), tmpl)) new_ = i;
  std::int64_t max_old = 0;
  for (Json* old : olds())
    max_old = std::max(max_old, revision_of(*old));
  const std::int64_t revision = max_old + 1;
  const bool deadline = has_progress_deadline(d_);
  if (new_) {
    Json& rs = sets_[*new_];
    bool changed = set_new_annotations(rs, revision, true);
    const Json min_ready = int_at(d_, {"spec", "minReadySeconds"}, 0);
    if (int_at(rs, {"spec", "minReadySeconds"}, 0) != min_ready.get<std::int64_t>()) {
      rs["spec"]["minReadySeconds"] = min_ready;
      changed = true;
    }
    if (changed) record_update(rs);
    set_revision(annotation(rs, kRevision).value_or(""));
    if (deadline && !deployment_condition_of(d_["status"], "Progressing"))
      set_deployment_condition(
          d_["status"],
          deployment_condition("Progressing", "True", "FoundNewReplicaSet",
                               "Found new replica set \"" + name_of(rs) + "\"", now_));
    return;
  }
  if (!create) return;
  const Json& collisions = at_path(d_, {"status", "collisionCount"});
  const std::string hash = pod_template_hash(
      tmpl, collisions.is_number_integer() ? std::optional(collisions.get<std::int64_t>())
                                           : std::nullopt);
  Json rs_template = tmpl;
  rs_template["metadata"]["labels"][kHashLabel] = hash;
  Json selector = at_path(d_, {"spec", "selector"});
  selector["matchLabels"][kHashLabel] = hash;
  Json rs = {
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata",
       {{"name", name_of(d_) + "-" + hash},
        {"namespace", namespace_of(d_)},
        {"labels", rs_template["metadata"]["labels"]},
        {"ownerReferences", Json::array({controller_reference(d_, "apps/v1", "Deployment")})}}},
      {"spec",
       {{"replicas", 0},
        {"minReadySeconds", int_at(d_, {"spec", "minReadySeconds"}, 0)},
        {"selector", selector},
        {"template", rs_template}}}};
  // NewRSNewReplicas
  int count = replicas();
  if (rolling_update(d_)) {
    const int surge = scaled_int_or_percent(
        at_path(d_, {"spec", "strategy", "rollingUpdate", "maxSurge"}), replicas(), true, 0);
    int current = 0;
    for (Json* old : olds())
      current += replicas_of(*old);
    const int max_total = replicas() + surge;
    count = current >= max_total ? 0 : std::min(max_total - current, replicas());
  }
  rs["spec"]["replicas"] = count;
  set_new_annotations(rs, revision, false);
  sets_.push_back(rs);
  new_ = sets_.size() - 1;
  plan_.create = rs;
  if (count > 0)
    plan_.events.push_back(
        {"Normal", "ScalingReplicaSet",
         "Scaled up replica set " + name_of(rs) + " to " + std::to_string(count)});
  set_revision(std::to_string(revision));
  if (deadline)
    set_deployment_condition(
        d_["status"],
        deployment_condition("Progressing", "True", "NewReplicaSetCreated",
                             "Created new replica set \"" + name_of(rs) + "\"", now_));
}

// scaleReplicaSet: the size, and the desired/max-replicas annotations, brought up to date.
bool DeploymentSync::scale(Json& rs, int to, bool only_if_size_changes) {
  const int from = replicas_of(rs);
  if (only_if_size_changes && from == to) return false;
  const Fenceposts f = deployment_fenceposts(d_);
  Json& annotations = annotations_of(rs);
  const std::string desired = std::to_string(replicas());
  const std::string max = std::to_string(replicas() + f.surge);
  const bool stale = annotations.value(kDesiredReplicas, "") != desired ||
                     annotations.value(kMaxReplicas, "") != max;
  if (from == to && !stale) return false;
  rs["spec"]["replicas"] = to;
  annotations[kDesiredReplicas] = desired;
  annotations[kMaxReplicas] = max;
  record_update(rs);
  if (from == to) return false;
  plan_.events.push_back({"Normal", "ScalingReplicaSet",
                          std::string("Scaled ") + (from < to ? "up" : "down") + " replica set " +
                              name_of(rs) + " to " + std::to_string(to) + " from " +
                              std::to_string(from)});
  return true;
}

DeploymentPlan DeploymentSync::run() {
  if (!d_["status"].is_object()) d_["status"] = Json::object();
  const Json& selector = at_path(d_, {"spec", "selector"});
  if (selector.is_object() && semantic_equal(selector, Json::object())) {
    // A selector that selects everything: the real controller only records observedGeneration.
    plan_.status = d_["status"];
    plan_.status["observedGeneration"] = int_at(d_, {"metadata", "generation"}, 0);
    plan_.events.push_back({"Warning", "SelectingAll",
                            "This deployment is selecting all pods. A non-empty selector is "
                            "required."});
    return std::move(plan_);
  }
  const bool paused =
      at_path(d_, {"spec", "paused"}).is_boolean() && d_["spec"]["paused"].get<bool>();
  if (marked_for_deletion(d_)) {
    find_sets(false);
    std::vector<const Json*> sets = all();
    plan_.status = calculate_deployment_status(sets, new_ ? &sets_[*new_] : nullptr, d_, now_);
  } else {
    // checkPausedConditions
    const Json* progressing = deployment_condition_of(d_["status"], "Progressing");
    const std::string reason = progressing ? progressing->value("reason", "") : "";
    if (has_progress_deadline(d_) && reason != "ProgressDeadlineExceeded") {
      if (paused && reason != "DeploymentPaused") {
        set_deployment_condition(d_["status"],
                                 deployment_condition("Progressing", "Unknown", "DeploymentPaused",
                                                      "Deployment is paused", now_));
      } else if (!paused && reason == "DeploymentPaused") {
        set_deployment_condition(d_["status"],
                                 deployment_condition("Progressing", "Unknown", "DeploymentResumed",
                                                      "Deployment is resumed", now_));
      }
    }
    // isScalingEvent: an active set whose desired-replicas differs from spec.replicas.
    bool scaling = paused;
    if (!scaling) {
      DeploymentSync probe(original_, {}, pods_, now_);
      probe.sets_ = sets_;
      probe.d_ = d_;
      probe.find_sets(false);
      for (const auto& s : probe.sets_) {
        auto desired = annotation(s, kDesiredReplicas);
        if (replicas_of(s) > 0 && desired && *desired != std::to_string(replicas())) scaling = true;
      }
    }
    if (scaling) {
      sync_scaling();
    } else if (rolling_update(d_)) {
      rolling();
    } else {
      recreate();
    }
  }
  const std::string created = plan_.create ? name_of(*plan_.create) : std::string();
  for (const auto& s : sets_)
    if (updated_.contains(name_of(s)) && name_of(s) != created) plan_.update.push_back(s);
  if (plan_.create) plan_.create = sets_[*new_];  // with any change made after it was planned
  return std::move(plan_);
}

}  // namespace deployment_detail

std::string pod_template_hash(const nlohmann::json& pod_template,
                              std::optional<std::int64_t> collisions) {
  std::string bytes = pod_template.dump();
  if (collisions) {
    const auto c = static_cast<std::uint32_t>(*collisions);
    for (int i = 0; i < 4; ++i)
      bytes.push_back(static_cast<char>((c >> (8 * i)) & 0xff));
  }
  return safe_encode(std::to_string(fnv1a32(bytes)));
}

bool equal_ignore_hash(const nlohmann::json& a, const nlohmann::json& b) {
  nlohmann::json x = a, y = b;
  for (nlohmann::json* t : {&x, &y}) {
    if (!(*t).is_object()) continue;
    nlohmann::json& labels = (*t)["metadata"]["labels"];
    if (labels.is_object()) labels.erase(deployment_detail::kHashLabel);
  }
  return semantic_equal(x, y);
}

Fenceposts deployment_fenceposts(const nlohmann::json& d) {
  if (!deployment_detail::rolling_update(d)) return {};
  const int replicas = deployment_detail::replicas_of(d);
  const nlohmann::json& rolling = at_path(d, {"spec", "strategy", "rollingUpdate"});
  const nlohmann::json default_quarter = "25%";
  const nlohmann::json& surge_json =
      rolling.contains("maxSurge") ? rolling["maxSurge"] : default_quarter;
  const nlohmann::json& unavailable_json =
      rolling.contains("maxUnavailable") ? rolling["maxUnavailable"] : default_quarter;
  Fenceposts f;
  f.surge = scaled_int_or_percent(surge_json, replicas, true, 0);
  f.unavailable = scaled_int_or_percent(unavailable_json, replicas, false, 0);
  if (f.surge == 0 && f.unavailable == 0) f.unavailable = 1;
  f.unavailable = std::min(f.unavailable, replicas);
  return f;
}

DeploymentPlan plan_deployment(const nlohmann::json& deployment,
                               const std::vector<const nlohmann::json*>& sets,
                               const std::vector<const nlohmann::json*>& pods, TimePoint now) {
  return deployment_detail::DeploymentSync(deployment, sets, pods, now).run();
}

}  // namespace respool::sandbox::sim
