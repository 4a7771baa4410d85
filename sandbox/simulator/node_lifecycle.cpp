#include "sandbox/simulator/node_lifecycle.hpp"

#include "operator/runtime/log.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/node_faults.hpp"
#include "sandbox/simulator/node_taints.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

NodeLifecycle::NodeLifecycle(Cluster& cluster)
    : SimController(cluster, "sandbox-node-lifecycle", 1) {
  controller_.watch<kube::Unstructured>(cluster.nodes);
}

std::expected<ReconcileResult, std::string> NodeLifecycle::reconcile(const std::string& key) {
  ObjectPtr cached = cluster_.nodes.store().get(key);
  if (!cached) return ReconcileResult::done();
  const Json& node = cached->object;
  const auto now = cluster_.clock.now();
  std::vector<std::string> errors;
  Json desired = apply_faults(node, now, &errors);
  for (const auto& e : errors)
    runtime::log::warn("sandbox", "node fault ignored", {{"node", key}, {"fault", e}});
  mirror_condition_taints(desired, now);

  // The record of applied faults and the taints go first: a status change it describes must
  // never be on the server without it (see node_faults.cpp).
  const bool object_changed =
      desired["metadata"] != node["metadata"] ||
      desired.value("spec", Json::object()) != node.value("spec", Json::object());
  const bool status_changed = desired.value("status", Json()) != node.value("status", Json());
  std::string resource_version = cached->meta.resource_version;
  if (object_changed) {
    auto written = cluster_.client.update(kube::resources::nodes, "", desired);
    if (!written) {
      if (written.error().is(kube::Error::Kind::NotFound)) return ReconcileResult::done();
      return std::unexpected("node update: " + written.error().describe());
    }
    resource_version = string_at(*written, {"metadata", "resourceVersion"});
  }
  if (status_changed) {
    desired["metadata"]["resourceVersion"] = resource_version;
    auto written = cluster_.client.update_status(kube::resources::nodes, "", desired);
    if (!written && !written.error().is(kube::Error::Kind::NotFound))
      return std::unexpected("node status: " + written.error().describe());
  }
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
