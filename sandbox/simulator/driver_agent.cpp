#include "sandbox/simulator/driver_agent.hpp"

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

DriverAgent::DriverAgent(Cluster& cluster) : SimController(cluster, "sandbox-driver-agent", 1) {
  controller_.watch<kube::Unstructured>(cluster.pods, [](const kube::Unstructured& pod) {
    if (!annotation(pod.object, kDriverVersion)) return std::vector<std::string>{};
    return std::vector<std::string>{pod.meta.key()};
  });
  // A node Ready again: a driver pod that became Ready while it was not has not changed since.
  controller_.watch<kube::Unstructured>(cluster.nodes, [&cluster](const kube::Unstructured& node) {
    std::vector<std::string> keys;
    for (const auto& pod : cluster.pods.store().by_index(kByNode, node.meta.name))
      if (annotation(pod->object, kDriverVersion)) keys.push_back(pod->meta.key());
    return keys;
  });
}

std::expected<ReconcileResult, std::string> DriverAgent::reconcile(const std::string& key) {
  ObjectPtr cached = cluster_.pods.store().get(key);
  if (!cached || cached->meta.deletion_timestamp) return ReconcileResult::done();
  const Json& pod = cached->object;
  const auto version = annotation(pod, kDriverVersion);
  if (!version || version->empty()) return ReconcileResult::done();
  if (string_at(pod, {"status", "phase"}) != "Running") return ReconcileResult::done();
  const Json* ready = find_condition(pod, "Ready");
  if (!ready || ready->value("status", std::string()) != "True") return ReconcileResult::done();
  ObjectPtr node = cluster_.nodes.store().get(string_at(pod, {"spec", "nodeName"}));
  if (!node || !simulated(node->object) ||
      condition_status(node->object, "Ready") != kube::ConditionStatus::True)
    return ReconcileResult::done();
  if (label(node->object, kDriverVersion) == version) return ReconcileResult::done();

  const auto since = apimachinery::parse_time(ready->value("lastTransitionTime", std::string()));
  const auto now = cluster_.clock.now();
  if (since && now < *since + cluster_.timing.driver_install)
    return ReconcileResult::after(*since + cluster_.timing.driver_install - now);
  Json patch = {{"metadata", {{"labels", {{kDriverVersion, *version}}}}}};
  auto patched = cluster_.client.patch(kube::resources::nodes, "", node->meta.name,
                                       kube::PatchType::Merge, patch);
  if (!patched && !patched.error().is(kube::Error::Kind::NotFound))
    return std::unexpected("node label: " + patched.error().describe());
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
