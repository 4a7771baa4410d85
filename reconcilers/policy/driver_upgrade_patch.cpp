#include "reconcilers/policy/driver_upgrade_patch.hpp"

#include <algorithm>
#include <string>

#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

std::string annotation_of(const NodeView& node, std::string_view key) {
  auto it = node.annotations.find(key);
  return it == node.annotations.end() ? std::string() : it->second;
}

}  // namespace

std::string_view upgrade_code(AcceleratorType type) {
  return type == AcceleratorType::NPU ? kNpuUpgradeCode : kGpuUpgradeCode;
}

json upgrade_patch(const NodeView& node, const UpgradeStep& step, AcceleratorType type,
                   std::string_view now) {
  if (step.to == step.from) return nullptr;
  const std::string k_state(kDriverUpgradeStateLabel), k_since(kDriverUpgradeSinceAnnotation),
      k_attempts(kDriverUpgradeAttemptsAnnotation), k_failure(kDriverUpgradeFailureAnnotation),
      k_cordoned(kCordonedByAnnotation);
  json patch = {{"metadata", {{"resourceVersion", node.resource_version}}}};
  json& labels = patch["metadata"]["labels"];
  json& annotations = patch["metadata"]["annotations"];
  if (step.to == UpgradeState::None) {
    labels[k_state] = nullptr;
    annotations[k_since] = nullptr;
  } else {
    labels[k_state] = std::string(to_string(step.to));
    annotations[k_since] = std::string(now);
  }

  const std::string taint = isolation_taint_key(upgrade_code(type));
  std::vector<Taint> taints = node.taints;
  const bool cordoned_by_us =
      annotation_of(node, kCordonedByAnnotation) == kCordonedByDriverUpgrade;
  if (in_flight(step.to)) {
    if (std::none_of(taints.begin(), taints.end(), [&](const Taint& t) { return t.key == taint; }))
      taints.push_back({taint, "", "NoSchedule", ""});
    if (!node.unschedulable) {
      patch["spec"]["unschedulable"] = true;
      annotations[k_cordoned] = std::string(kCordonedByDriverUpgrade);
    }
    if (step.from == UpgradeState::Failed) {
      annotations[k_failure] = nullptr;
      if (step.to == UpgradeState::DriverRestartRequired)
        annotations[k_attempts] = std::to_string(read_upgrade_node(node, "").attempts + 1);
    }
  } else {
    std::erase_if(taints, [&](const Taint& t) { return t.key == taint; });
    if (step.to == UpgradeState::Failed) {
      annotations[k_failure] = step.reason + ": " + step.message;
    } else {
      // Done, or left out: what respool cordoned is uncordoned, and nothing else.
      if (cordoned_by_us) {
        patch["spec"]["unschedulable"] = false;
        annotations[k_cordoned] = nullptr;
      }
      annotations[k_failure] = nullptr;
      annotations[k_attempts] = nullptr;
    }
  }
  if (taints != node.taints) patch["spec"]["taints"] = taints_to_json(taints);
  return patch;
}

}  // namespace respool::policy
