#include "reconcilers/policy/node_operation_patch.hpp"

#include <algorithm>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_patch.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

json guarded_node(const NodeView& node) {
  return {{"metadata", {{"resourceVersion", node.resource_version}}}};
}

std::vector<Taint> with_taint(std::vector<Taint> taints, std::string_view key) {
  if (std::none_of(taints.begin(), taints.end(), [&](const Taint& t) { return t.key == key; }))
    taints.push_back({std::string(key), "", "NoSchedule", ""});
  return taints;
}

std::vector<Taint> without_taint(std::vector<Taint> taints, std::string_view key) {
  std::erase_if(taints, [&](const Taint& t) { return t.key == key; });
  return taints;
}

std::string key(std::string_view k) {
  return std::string(k);
}

}  // namespace

json mark_patch(const NodeView& node, std::string_view operation, NodeOperationType type) {
  json patch = guarded_node(node);
  json annotations = {{key(kNodeOperationAnnotation), operation},
                      {key(kNodeOperationTypeAnnotation), std::string(to_string(type))}};
  if (type != NodeOperationType::Delete && !node.unschedulable) {
    annotations[key(kCordonedByAnnotation)] = operation;
    patch["spec"]["unschedulable"] = true;
  }
  patch["metadata"]["annotations"] = annotations;
  if (type == NodeOperationType::Reset)
    patch["spec"]["taints"] = taints_to_json(with_taint(node.taints, kResettingTaintKey));
  return patch;
}

json retire_patch(const NodeView& node, std::string_view operation, std::string_view pool,
                  std::string_view replacement, std::string_view when) {
  json patch = release_patch(node);
  patch["metadata"]["labels"][key(kRetiredKey)] = "true";
  patch["metadata"]["annotations"][key(kRetiredKey)] =
      "replaced by " + std::string(replacement) + " in pool " + std::string(pool) +
      " (NodeOperation " + std::string(operation) + ", " + std::string(when) + ")";
  // release_patch kept the taints that are not ours; retired joins them.
  std::vector<Taint> taints;
  for (const json& t : patch["spec"]["taints"]) {
    taints.push_back({t.value("key", ""), t.value("value", ""), t.value("effect", ""),
                      t.value("timeAdded", "")});
  }
  patch["spec"]["taints"] = taints_to_json(with_taint(std::move(taints), kRetiredKey));
  patch["spec"]["unschedulable"] = true;
  return patch;
}

json readmit_patch(const NodeView& node, bool driver_upgrade_required) {
  json patch = guarded_node(node);
  std::vector<Taint> taints = without_taint(node.taints, kResettingTaintKey);
  taints = with_taint(std::move(taints), isolation_taint_key(kAdmissionCode));
  patch["spec"]["taints"] = taints_to_json(taints);
  if (driver_upgrade_required)
    patch["metadata"]["labels"] = {{key(kDriverUpgradeStateLabel), "upgrade-required"}};
  return patch;
}

json restore_patch(const NodeView& node, const Restore& r, std::string_view reason) {
  if (!r.unmark && !r.uncordon && !r.untaint && !r.keep_cordon_reason) return nullptr;
  json patch = guarded_node(node);
  json annotations = json::object();
  if (r.unmark) {
    for (std::string_view k :
         {kNodeOperationAnnotation, kNodeOperationTypeAnnotation, kCordonedByAnnotation}) {
      if (node.annotations.contains(k)) annotations[key(k)] = nullptr;
    }
  }
  if (r.keep_cordon_reason) annotations[key(kCordonReasonAnnotation)] = reason;
  if (!annotations.empty()) patch["metadata"]["annotations"] = annotations;
  if (r.uncordon) patch["spec"]["unschedulable"] = false;
  if (r.untaint && node.has_taint(kResettingTaintKey))
    patch["spec"]["taints"] = taints_to_json(without_taint(node.taints, kResettingTaintKey));
  if (patch["metadata"].size() == 1 && !patch.contains("spec")) return nullptr;
  return patch;
}

json detach_replacement_patch(const NodeView& node) {
  if (!node.annotations.contains(kReplacementForAnnotation)) return nullptr;
  json patch = guarded_node(node);
  patch["metadata"]["annotations"] = {{key(kReplacementForAnnotation), nullptr}};
  return patch;
}

}  // namespace respool::policy
