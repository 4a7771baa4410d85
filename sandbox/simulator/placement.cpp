#include "sandbox/simulator/placement.hpp"

#include <algorithm>
#include <map>

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

// The node's taints, plus the Ready taint its condition calls for when it is not there yet.
std::vector<Taint> effective_taints(const Json& node) {
  std::vector<Taint> taints = node_taints(node);
  const auto ready = condition_status(node, "Ready");
  if (ready == kube::ConditionStatus::True) return taints;
  const char* key = ready == kube::ConditionStatus::False ? kTaintNotReady : kTaintUnreachable;
  const bool present = std::any_of(taints.begin(), taints.end(), [&](const Taint& t) {
    return t.key == key && t.effect == "NoSchedule";
  });
  if (!present) taints.insert(taints.begin(), Taint{key, "", "NoSchedule"});
  return taints;
}

std::int64_t resource_score(std::int64_t requested, std::int64_t allocatable) {
  if (allocatable <= 0 || requested > allocatable) return 0;
  return (allocatable - requested) * 100 / allocatable;
}

}  // namespace

std::vector<std::string> filter_node(const Json& pod_spec, const kube::ResourceList& requests,
                                     const Json& node, const NodeUsage& usage) {
  const Json& tolerations = at_path(pod_spec, {"tolerations"});
  const Json& unschedulable = at_path(node, {"spec", "unschedulable"});
  if (unschedulable.is_boolean() && unschedulable.get<bool>() &&
      !tolerated(tolerations, Taint{kTaintUnschedulable, "", "NoSchedule"})) {
    return {"node(s) were unschedulable"};
  }
  if (auto taint =
          untolerated_taint(effective_taints(node), tolerations, Effects::NoScheduleAndNoExecute)) {
    return {"node(s) had untolerated taint {" + taint->key + ": " + taint->value + "}"};
  }
  if (!matches_node_selector(pod_spec, node) || !matches_required_affinity(pod_spec, node)) {
    return {"node(s) didn't match Pod's node affinity/selector"};
  }
  std::vector<std::string> reasons;
  const kube::ResourceList allocatable = node_allocatable(node);
  if (usage.pods + 1 > allocatable.get("pods").value()) reasons.push_back("Too many pods");
  for (const auto& [name, q] : requests.items()) {
    if (name == "pods" || q.milli() <= 0) continue;
    if (usage.requested.get(name.view()) + q > allocatable.get(name.view()))
      reasons.push_back("Insufficient " + name.str());
  }
  return reasons;
}

std::int64_t least_allocated_score(const kube::ResourceList& requests, const Json& node,
                                   const NodeUsage& usage) {
  const kube::ResourceList allocatable = node_allocatable(node);
  auto non_zero = [&](std::string_view name, apimachinery::Quantity fallback) {
    apimachinery::Quantity q = requests.get(name);
    return q.milli() > 0 ? q : fallback;
  };
  const auto cpu =
      usage.requested.get("cpu") + non_zero("cpu", apimachinery::Quantity::from_milli(100));
  const auto memory = usage.requested.get("memory") +
                      non_zero("memory", apimachinery::Quantity::from_units(200LL * 1024 * 1024));
  return (resource_score(cpu.milli(), allocatable.get("cpu").milli()) +
          resource_score(memory.milli(), allocatable.get("memory").milli())) /
         2;
}

Placement place_pod(const Json& pod, const std::vector<const Json*>& nodes,
                    const UsageLookup& usage) {
  const Json& spec = at_path(pod, {"spec"});
  const kube::ResourceList requests = pod_requests(spec);
  std::map<std::string, int> reasons;
  std::string best;
  std::int64_t best_score = -1;
  for (const Json* node : nodes) {
    const std::string name = string_at(*node, {"metadata", "name"});
    const NodeUsage used = usage(name);
    auto failed = filter_node(spec, requests, *node, used);
    if (!failed.empty()) {
      for (auto& r : failed)
        ++reasons[r];
      continue;
    }
    const std::int64_t score = least_allocated_score(requests, *node, used);
    if (score > best_score || (score == best_score && name < best)) {
      best = name;
      best_score = score;
    }
  }
  if (!best.empty()) return {best, {}};
  if (nodes.empty()) return {{}, "no nodes available to schedule pods"};
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons)
    parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string message = "0/" + std::to_string(nodes.size()) + " nodes are available:";
  for (std::size_t i = 0; i < parts.size(); ++i)
    message += (i == 0 ? " " : ", ") + parts[i];
  message += ".";
  return {{}, message};
}

}  // namespace respool::sandbox::sim
