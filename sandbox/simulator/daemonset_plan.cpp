#include "sandbox/simulator/daemonset_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/template_hash.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;
using TimePoint = std::chrono::system_clock::time_point;

void add_or_update_toleration(Json& tolerations, const Json& toleration) {
  for (auto& t : tolerations) {
    if (t.value("key", "") == toleration.value("key", "") &&
        t.value("operator", "Equal") == toleration.value("operator", "Equal") &&
        t.value("value", "") == toleration.value("value", "") &&
        t.value("effect", "") == toleration.value("effect", "")) {
      t = toleration;
      return;
    }
  }
  tolerations.push_back(toleration);
}

Json exists(const char* key, const char* effect) {
  return {{"key", key}, {"operator", "Exists"}, {"effect", effect}};
}

bool deleting(const Json& pod) {
  return !at_path(pod, {"metadata", "deletionTimestamp"}).is_null();
}

bool pod_ready(const Json& pod) {
  return condition_status(pod, "Ready") == kube::ConditionStatus::True;
}

std::string template_generation(const Json& ds) {
  if (auto g = annotation(ds, "deprecated.daemonset.template.generation")) return *g;
  const Json& g = at_path(ds, {"metadata", "generation"});
  return g.is_number_integer() ? std::to_string(g.get<std::int64_t>()) : std::string("0");
}

bool pod_updated(const Json& pod, const std::string& hash, const std::string& generation) {
  return label(pod, kControllerRevisionHash) == hash ||
         label(pod, kPodTemplateGeneration) == generation;
}

// Oldest first (then by name), as podByCreationTimestampAndPhase for bound pods.
void sort_oldest_first(std::vector<const Json*>& pods) {
  std::sort(pods.begin(), pods.end(), [](const Json* a, const Json* b) {
    const auto ta = string_at(*a, {"metadata", "creationTimestamp"});
    const auto tb = string_at(*b, {"metadata", "creationTimestamp"});
    auto pa = apimachinery::parse_time(ta);
    auto pb = apimachinery::parse_time(tb);
    if (pa && pb && *pa != *pb) return *pa < *pb;
    return string_at(*a, {"metadata", "name"}) < string_at(*b, {"metadata", "name"});
  });
}

int int_field(const Json& object, std::initializer_list<std::string_view> path, int fallback) {
  const Json& v = at_path(object, path);
  return v.is_number_integer() ? v.get<int>() : fallback;
}

}  // namespace

Json daemon_pod_spec(const Json& daemonset) {
  Json spec = at_path(daemonset, {"spec", "template", "spec"});
  if (!spec.is_object()) spec = Json::object();
  Json& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) tolerations = Json::array();
  add_or_update_toleration(tolerations, exists(kTaintNotReady, "NoExecute"));
  add_or_update_toleration(tolerations, exists(kTaintUnreachable, "NoExecute"));
  add_or_update_toleration(tolerations, exists(kTaintDiskPressure, "NoSchedule"));
  add_or_update_toleration(tolerations, exists(kTaintMemoryPressure, "NoSchedule"));
  add_or_update_toleration(tolerations, exists(kTaintPidPressure, "NoSchedule"));
  add_or_update_toleration(tolerations, exists(kTaintUnschedulable, "NoSchedule"));
  const Json& host_network = at_path(spec, {"hostNetwork"});
  if (host_network.is_boolean() && host_network.get<bool>())
    add_or_update_toleration(tolerations, exists(kTaintNetworkUnavailable, "NoSchedule"));
  return spec;
}

NodeVerdict node_should_run(const Json& pod_spec, const Json& node) {
  const std::string wanted = string_at(pod_spec, {"nodeName"});
  if (!wanted.empty() && wanted != string_at(node, {"metadata", "name"})) return {};
  if (!matches_node_selector(pod_spec, node) || !matches_required_affinity(pod_spec, node))
    return {};
  const std::vector<Taint> taints = node_taints(node);
  const Json& tolerations = at_path(pod_spec, {"tolerations"});
  if (untolerated_taint(taints, tolerations, Effects::NoScheduleAndNoExecute)) {
    return {false, !untolerated_taint(taints, tolerations, Effects::NoExecuteOnly)};
  }
  return {true, true};
}

Json daemon_pod(const Json& daemonset, const std::string& node, const std::string& hash) {
  const Json& tmpl_meta = at_path(daemonset, {"spec", "template", "metadata"});
  Json labels = at_path(tmpl_meta, {"labels"});
  if (!labels.is_object()) labels = Json::object();
  labels[kControllerRevisionHash] = hash;
  labels[kPodTemplateGeneration] = template_generation(daemonset);
  Json metadata = {
      {"generateName", string_at(daemonset, {"metadata", "name"}) + "-"},
      {"namespace", string_at(daemonset, {"metadata", "namespace"})},
      {"labels", labels},
      {"ownerReferences", Json::array({{{"apiVersion", "apps/v1"},
                                        {"kind", "DaemonSet"},
                                        {"name", string_at(daemonset, {"metadata", "name"})},
                                        {"uid", string_at(daemonset, {"metadata", "uid"})},
                                        {"controller", true},
                                        {"blockOwnerDeletion", true}}})}};
  const Json& annotations = at_path(tmpl_meta, {"annotations"});
  if (annotations.is_object() && !annotations.empty()) metadata["annotations"] = annotations;
  Json spec = daemon_pod_spec(daemonset);
  spec["nodeName"] = node;
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
}

int max_unavailable(const Json& daemonset, int desired) {
  const Json& v = at_path(daemonset, {"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"});
  int n = 1;
  if (v.is_number_integer()) {
    n = v.get<int>();
  } else if (v.is_string()) {
    std::string text = v.get<std::string>();
    if (!text.empty() && text.back() == '%') {
      text.pop_back();
      try {
        n = static_cast<int>(std::ceil(std::stod(text) * desired / 100.0));
      } catch (const std::exception&) {
        n = 1;
      }
    } else {
      try {
        n = std::stoi(text);
      } catch (const std::exception&) {
        n = 1;
      }
    }
  }
  return n <= 0 ? 1 : n;
}

bool pod_available(const Json& pod, int min_ready_seconds, TimePoint now) {
  const Json* ready = find_condition(pod, "Ready");
  if (!ready || ready->value("status", "") != "True") return false;
  if (min_ready_seconds <= 0) return true;
  auto since = apimachinery::parse_time(ready->value("lastTransitionTime", ""));
  return since && *since + std::chrono::seconds(min_ready_seconds) <= now;
}

DaemonSetPlan plan_daemonset(const Json& ds, const std::vector<const Json*>& nodes,
                             const std::vector<const Json*>& pods, TimePoint now) {
  DaemonSetPlan plan;
  const std::string hash = template_hash(at_path(ds, {"spec", "template"}));
  const std::string generation = template_generation(ds);
  const int min_ready = int_field(ds, {"spec", "minReadySeconds"}, 0);
  const Json spec = daemon_pod_spec(ds);

  std::map<std::string, std::vector<const Json*>> by_node;
  for (const Json* pod : pods) {
    const std::string node = string_at(*pod, {"spec", "nodeName"});
    if (node.empty() || (pod_terminal(*pod) && deleting(*pod))) continue;
    by_node[node].push_back(pod);
  }
  for (auto& [node, list] : by_node)
    sort_oldest_first(list);

  // Sorted by name, each name read once (a lookup per comparison dominated large clusters).
  std::vector<std::pair<std::string_view, const Json*>> named;
  named.reserve(nodes.size());
  for (const Json* node : nodes)
    named.emplace_back(string_view_at(*node, {"metadata", "name"}), node);
  std::sort(named.begin(), named.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Json*> sorted_nodes;
  sorted_nodes.reserve(named.size());
  for (const auto& [name, node] : named)
    sorted_nodes.push_back(node);

  std::vector<std::string> remove;
  std::vector<std::string> wanted;  // nodes that should run a pod
  int desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
  for (const Json* node : sorted_nodes) {
    const std::string name = string_at(*node, {"metadata", "name"});
    const NodeVerdict verdict = node_should_run(spec, *node);
    auto found = by_node.find(name);
    const std::vector<const Json*> empty;
    const auto& here = found == by_node.end() ? empty : found->second;
    if (verdict.should_run && here.empty()) {
      plan.create_on.push_back(name);
    } else if (verdict.should_continue) {
      std::vector<const Json*> running;
      for (const Json* p : here) {
        if (deleting(*p)) continue;
        if (pod_terminal(*p)) {
          remove.push_back(string_at(*p, {"metadata", "name"}));
          continue;
        }
        running.push_back(p);
      }
      for (std::size_t i = 1; i < running.size(); ++i)
        remove.push_back(string_at(*running[i], {"metadata", "name"}));
    } else if (!here.empty()) {
      for (const Json* p : here)
        if (!deleting(*p)) remove.push_back(string_at(*p, {"metadata", "name"}));
    }

    if (verdict.should_run) {
      ++desired;
      wanted.push_back(name);
      if (here.empty()) continue;
      ++current;
      const Json& first = *here.front();
      if (pod_ready(first)) {
        ++ready;
        if (pod_available(first, min_ready, now)) {
          ++available;
        } else if (auto since = apimachinery::parse_time(
                       find_condition(first, "Ready")->value("lastTransitionTime", ""))) {
          auto wait = *since + std::chrono::seconds(min_ready) - now;
          if (plan.recheck == decltype(wait){} || wait < plan.recheck) plan.recheck = wait;
        }
      }
      if (pod_updated(first, hash, generation)) ++updated;
    } else if (!here.empty()) {
      ++misscheduled;
    }
  }

  const std::string strategy = string_at(ds, {"spec", "updateStrategy", "type"});
  if (strategy.empty() || strategy == "RollingUpdate") {
    const int budget = max_unavailable(ds, desired);
    int unavailable = 0;
    std::vector<std::string> allowed, candidates;
    // A node that should run a pod and has none counts as unavailable (updatedDesiredNodeCounts).
    for (const auto& name : wanted)
      by_node.try_emplace(name);
    for (const auto& [node, list] : by_node) {
      const Json* fresh = nullptr;
      const Json* old = nullptr;
      bool single = true;
      for (const Json* p : list) {
        if (deleting(*p)) continue;
        const Json*& slot = pod_updated(*p, hash, generation) ? fresh : old;
        if (slot) single = false;
        slot = p;
      }
      if (!single || (!fresh && !old) || (fresh && old)) {
        ++unavailable;  // the manage pass sorts this node out first
      } else if (fresh) {
        if (!pod_available(*fresh, min_ready, now)) ++unavailable;
      } else if (!pod_available(*old, min_ready, now)) {
        allowed.push_back(string_at(*old, {"metadata", "name"}));
      } else if (unavailable < budget) {
        candidates.push_back(string_at(*old, {"metadata", "name"}));
      }
    }
    const int room = std::clamp(budget - unavailable, 0, static_cast<int>(candidates.size()));
    remove.insert(remove.end(), allowed.begin(), allowed.end());
    remove.insert(remove.end(), candidates.begin(), candidates.begin() + room);
  }
  for (const auto& name : remove)
    if (std::find(plan.remove.begin(), plan.remove.end(), name) == plan.remove.end())
      plan.remove.push_back(name);

  Json status = at_path(ds, {"status"});
  if (!status.is_object()) status = Json::object();
  status["desiredNumberScheduled"] = desired;
  status["currentNumberScheduled"] = current;
  status["numberMisscheduled"] = misscheduled;
  status["numberReady"] = ready;
  auto optional = [&](const char* key, int value) {
    if (value == 0) {
      status.erase(key);
    } else {
      status[key] = value;
    }
  };
  optional("numberAvailable", available);
  optional("numberUnavailable", desired - available);
  optional("updatedNumberScheduled", updated);
  const Json& g = at_path(ds, {"metadata", "generation"});
  if (g.is_number_integer()) status["observedGeneration"] = g;
  plan.status = std::move(status);
  return plan;
}

}  // namespace respool::sandbox::sim
