#include "reconcilers/policy/node_patch.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

json guarded(const NodeView& node) {
  return {{"metadata", {{"resourceVersion", node.resource_version}}}};
}

std::string job_type_label(JobType type) {
  return std::string(kJobTypeLabelPrefix) + std::string(label_name(type));
}

void add_taint(std::vector<Taint>& taints, Taint taint) {
  for (const Taint& t : taints) {
    if (t.key == taint.key && t.effect == taint.effect) return;
  }
  taints.push_back(std::move(taint));
}

// Sets labels so that the job-type labels are exactly `job_types`; false when nothing changes.
bool set_job_type_labels(const NodeView& node, std::span<const JobType> job_types, json& labels) {
  bool changed = false;
  for (JobType type : kJobTypes) {
    const std::string key = job_type_label(type);
    const bool want = std::find(job_types.begin(), job_types.end(), type) != job_types.end();
    const std::string* have = node.label(key);
    if (want && (!have || *have != "true")) {
      labels[key] = "true";
      changed = true;
    } else if (!want && have) {
      labels[key] = nullptr;
      changed = true;
    }
  }
  return changed;
}

}  // namespace

json claim_patch(const NodeView& node, std::string_view pool, std::span<const JobType> job_types,
                 int container_engine_space_gib, std::string_view replaces) {
  json patch = guarded(node);
  json labels = json::object();
  labels[std::string(kPoolLabel)] = pool;
  set_job_type_labels(node, job_types, labels);
  patch["metadata"]["labels"] = labels;
  patch["metadata"]["annotations"] = {
      {std::string(kContainerEngineSpaceAnnotation), std::to_string(container_engine_space_gib)}};
  if (!replaces.empty())
    patch["metadata"]["annotations"][std::string(kReplacementForAnnotation)] = replaces;
  std::vector<Taint> taints = node.taints;
  add_taint(taints, {std::string(kPoolTaintKey), std::string(pool), "NoSchedule", ""});
  add_taint(taints, {isolation_taint_key(kAdmissionCode), "", "NoSchedule", ""});
  patch["spec"] = {{"taints", taints_to_json(taints)}};
  return patch;
}

json admission_done_patch(const NodeView& node) {
  const std::string key = isolation_taint_key(kAdmissionCode);
  if (!node.has_taint(key)) return nullptr;
  std::vector<Taint> taints;
  std::copy_if(node.taints.begin(), node.taints.end(), std::back_inserter(taints),
               [&](const Taint& t) { return t.key != key; });
  json patch = guarded(node);
  patch["spec"] = {{"taints", taints_to_json(taints)}};
  return patch;
}

json job_types_patch(const NodeView& node, std::span<const JobType> job_types) {
  json labels = json::object();
  if (!set_job_type_labels(node, job_types, labels)) return nullptr;
  json patch = guarded(node);
  patch["metadata"]["labels"] = labels;
  return patch;
}

json releasing_patch(const NodeView& node) {
  if (node.has_taint(kReleasingTaintKey)) return nullptr;
  std::vector<Taint> taints = node.taints;
  add_taint(taints, {std::string(kReleasingTaintKey), "", "NoSchedule", ""});
  json patch = guarded(node);
  patch["spec"] = {{"taints", taints_to_json(taints)}};
  return patch;
}

json keep_patch(const NodeView& node) {
  if (!node.has_taint(kReleasingTaintKey)) return nullptr;
  std::vector<Taint> taints;
  std::copy_if(node.taints.begin(), node.taints.end(), std::back_inserter(taints),
               [](const Taint& t) { return t.key != kReleasingTaintKey; });
  json patch = guarded(node);
  patch["spec"] = {{"taints", taints_to_json(taints)}};
  return patch;
}

json release_patch(const NodeView& node) {
  json patch = guarded(node);
  json labels = json::object();
  for (const auto& [key, value] : node.labels) {
    if (key == kPoolLabel || key.starts_with(kJobTypeLabelPrefix) ||
        key == kDriverUpgradeStateLabel) {
      labels[key] = nullptr;
    }
  }
  if (!labels.empty()) patch["metadata"]["labels"] = labels;
  json annotations = json::object();
  for (std::string_view key :
       {kContainerEngineSpaceAnnotation, kNodeOperationAnnotation, kNodeOperationTypeAnnotation,
        kCordonedByAnnotation, kReplacementForAnnotation, kDriverUpgradeSinceAnnotation,
        kDriverUpgradeAttemptsAnnotation, kDriverUpgradeFailureAnnotation}) {
    if (node.annotations.contains(key)) annotations[std::string(key)] = nullptr;
  }
  // A cordon respool made (a NodeOperation's, a driver upgrade's: cordoned-by says so) goes with
  // its record; a cordon someone else made stays. Without this a node released mid-upgrade
  // became free and unschedulable, its record gone (found by the soak).
  const bool uncordon = node.unschedulable && node.annotations.contains(kCordonedByAnnotation);
  if (uncordon) patch["spec"]["unschedulable"] = false;
  // A cordon respool kept on purpose (a failed reset: cordon-reason says why) stays, and so does
  // its reason, for whoever looks at the free node: a release that dropped only the reason left a
  // cordon nobody could explain (found by the soak, seed 60).
  if (node.annotations.contains(kCordonReasonAnnotation) && (uncordon || !node.unschedulable))
    annotations[std::string(kCordonReasonAnnotation)] = nullptr;
  if (!annotations.empty()) patch["metadata"]["annotations"] = annotations;
  const std::set<std::string> ours = {
      std::string(kPoolTaintKey),           std::string(kReleasingTaintKey),
      std::string(kResettingTaintKey),      isolation_taint_key(kAdmissionCode),
      isolation_taint_key(kGpuUpgradeCode), isolation_taint_key(kNpuUpgradeCode)};
  std::vector<Taint> taints;
  std::copy_if(node.taints.begin(), node.taints.end(), std::back_inserter(taints),
               [&](const Taint& t) { return !ours.contains(t.key); });
  patch["spec"]["taints"] = taints_to_json(taints);
  return patch;
}

}  // namespace respool::policy
