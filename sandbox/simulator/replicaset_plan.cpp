#include "sandbox/simulator/replicaset_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/conditions.hpp"
#include "sandbox/simulator/daemonset_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

int phase_ordinal(const Json& pod) {
  const std::string_view phase = string_view_at(pod, {"status", "phase"});
  if (phase == "Unknown") return 1;
  if (phase == "Running") return 2;
  return 0;  // Pending (and anything else)
}

std::int32_t deletion_cost(const Json& pod) {
  auto text = annotation(pod, "controller.kubernetes.io/pod-deletion-cost");
  if (!text) return 0;
  std::int32_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  return ec == std::errc() && end == text->data() + text->size() ? v : 0;
}

std::optional<TimePoint> ready_since(const Json& pod) {
  const Json* ready = find_condition(pod, "Ready");
  if (!ready || ready->value("status", "") != "True") return std::nullopt;
  return apimachinery::parse_time(ready->value("lastTransitionTime", ""));
}

int max_restarts(const Json& pod) {
  int most = 0;
  const Json& statuses = at_path(pod, {"status", "containerStatuses"});
  if (statuses.is_array())
    for (const auto& s : statuses)
      most = std::max(most, static_cast<int>(s.value("restartCount", 0)));
  return most;
}

// logarithmicRankDiff: the ages' floor(log2(nanoseconds)) compared; an age <= 0 ranks -1.
std::int64_t age_rank(TimePoint t, TimePoint now) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - t).count();
  return ns > 0 ? static_cast<std::int64_t>(std::log2(static_cast<double>(ns))) : -1;
}

struct Ranked {
  const Json* pod;
  int colocated;  // active pods of the set on the same node
};

// Whether a is deleted before b (ActivePodsWithRanks.Less).
bool delete_before(const Ranked& ra, const Ranked& rb, TimePoint now) {
  const Json& a = *ra.pod;
  const Json& b = *rb.pod;
  const std::string_view na = string_view_at(a, {"spec", "nodeName"});
  const std::string_view nb = string_view_at(b, {"spec", "nodeName"});
  if (na != nb && (na.empty() || nb.empty())) return na.empty();
  if (phase_ordinal(a) != phase_ordinal(b)) return phase_ordinal(a) < phase_ordinal(b);
  if (pod_is_ready(a) != pod_is_ready(b)) return !pod_is_ready(a);
  if (deletion_cost(a) != deletion_cost(b)) return deletion_cost(a) < deletion_cost(b);
  if (ra.colocated != rb.colocated) return ra.colocated > rb.colocated;
  auto by_age = [&](std::optional<TimePoint> ta,
                    std::optional<TimePoint> tb) -> std::optional<bool> {
    if (ta == tb) return std::nullopt;
    if (!ta || !tb) return !ta;  // an empty time is "newest"
    const auto diff = age_rank(*ta, now) - age_rank(*tb, now);
    if (diff == 0) return uid_of(a) < uid_of(b);
    return diff < 0;
  };
  if (pod_is_ready(a) && pod_is_ready(b))
    if (auto r = by_age(ready_since(a), ready_since(b))) return *r;
  if (max_restarts(a) != max_restarts(b)) return max_restarts(a) > max_restarts(b);
  if (auto r = by_age(time_at(a, {"metadata", "creationTimestamp"}),
                      time_at(b, {"metadata", "creationTimestamp"})))
    return *r;
  return false;
}

}  // namespace

std::vector<const Json*> deletion_order(const std::vector<const Json*>& pods, TimePoint now) {
  std::map<std::string, int> on_node;
  for (const Json* p : pods)
    if (pod_is_active(*p)) ++on_node[string_at(*p, {"spec", "nodeName"})];
  std::vector<Ranked> ranked;
  for (const Json* p : pods)
    ranked.push_back({p, on_node[string_at(*p, {"spec", "nodeName"})]});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const Ranked& a, const Ranked& b) { return delete_before(a, b, now); });
  std::vector<const Json*> out;
  for (const auto& r : ranked)
    out.push_back(r.pod);
  return out;
}

ReplicaSetPlan plan_replicaset(const Json& set, const std::vector<const Json*>& pods,
                               TimePoint now) {
  ReplicaSetPlan plan;
  std::vector<const Json*> active;
  for (const Json* p : pods)
    if (pod_is_active(*p)) active.push_back(p);
  const int want = static_cast<int>(int_at(set, {"spec", "replicas"}, 1));
  const int diff = static_cast<int>(active.size()) - want;
  if (!marked_for_deletion(set)) {
    if (diff < 0) {
      plan.create = -diff;
    } else if (diff > 0) {
      auto ordered = deletion_order(active, now);
      for (int i = 0; i < diff; ++i)
        plan.remove.push_back(name_of(*ordered[static_cast<std::size_t>(i)]));
    }
  }
  const int min_ready = static_cast<int>(int_at(set, {"spec", "minReadySeconds"}, 0));
  if (min_ready > 0) {
    for (const Json* p : active) {
      auto since = ready_since(*p);
      if (!since || pod_available(*p, min_ready, now)) continue;
      auto wait = *since + std::chrono::seconds(min_ready) - now;
      if (plan.recheck == decltype(wait){} || wait < plan.recheck) plan.recheck = wait;
    }
  }
  return plan;
}

Json replicaset_status(const Json& set, const std::vector<const Json*>& pods,
                       const std::string& failure, int diff, TimePoint now) {
  Json out = {{"status", at_path(set, {"status"})}};
  if (!out["status"].is_object()) out["status"] = Json::object();
  Json template_labels = at_path(set, {"spec", "template", "metadata", "labels"});
  const kube::LabelSelector template_selector = [&] {
    auto parsed = kube::LabelSelector::from_json(
        Json{{"matchLabels", template_labels.is_object() ? template_labels : Json::object()}});
    return parsed ? *parsed : kube::LabelSelector::nothing();
  }();
  const int min_ready = static_cast<int>(int_at(set, {"spec", "minReadySeconds"}, 0));
  int replicas = 0, labeled = 0, ready = 0, available = 0;
  for (const Json* p : pods) {
    if (!pod_is_active(*p)) continue;
    ++replicas;
    const Json& labels = at_path(*p, {"metadata", "labels"});
    if (template_selector.matches(labels.is_object() ? labels : Json::object())) ++labeled;
    if (pod_is_ready(*p)) {
      ++ready;
      if (pod_available(*p, min_ready, now)) ++available;
    }
  }
  Json& status = out["status"];
  const bool had_failure = find_condition(out, "ReplicaFailure") != nullptr;
  if (!failure.empty() && !had_failure) {
    set_condition(out,
                  {"ReplicaFailure", "True", diff < 0 ? "FailedCreate" : "FailedDelete", failure},
                  now, ConditionStyle::Pod);
    for (auto& c : status["conditions"])
      if (c.value("type", "") == "ReplicaFailure") c.erase("lastProbeTime");
  } else if (failure.empty() && had_failure) {
    Json kept = Json::array();
    for (const auto& c : status["conditions"])
      if (c.value("type", "") != "ReplicaFailure") kept.push_back(c);
    if (kept.empty()) {
      status.erase("conditions");
    } else {
      status["conditions"] = kept;
    }
  }
  status["replicas"] = replicas;
  auto set_count = [&](const char* key, std::int64_t value) {
    if (value == 0) {
      status.erase(key);
    } else {
      status[key] = value;
    }
  };
  set_count("fullyLabeledReplicas", labeled);
  set_count("readyReplicas", ready);
  set_count("availableReplicas", available);
  set_count("observedGeneration", int_at(set, {"metadata", "generation"}, 0));
  return status;
}

Json replica_pod(const Json& set, const std::string& api_version, const std::string& kind) {
  const Json& tmpl = at_path(set, {"spec", "template"});
  Json metadata = {
      {"generateName", name_of(set) + "-"},
      {"namespace", namespace_of(set)},
      {"ownerReferences", Json::array({controller_reference(set, api_version, kind)})}};
  for (const char* key : {"labels", "annotations", "finalizers"}) {
    const Json& v = at_path(tmpl, {"metadata", key});
    if ((v.is_object() || v.is_array()) && !v.empty()) metadata[key] = v;
  }
  Json spec = at_path(tmpl, {"spec"});
  if (!spec.is_object()) spec = Json::object();
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
}

}  // namespace respool::sandbox::sim
