#include "reconcilers/views.hpp"

namespace respool::reconcilers {

policy::NodeView to_node_view(const kube::Node& node) {
  policy::NodeView view;
  view.name = node.meta.name;
  view.resource_version = node.meta.resource_version;
  for (const auto& [k, v] : node.meta.labels.items())
    view.labels.emplace(k.str(), v.str());
  for (const auto& [k, v] : node.meta.annotations.items())
    view.annotations.emplace(k.str(), v.str());
  for (const auto& t : node.taints) {
    view.taints.push_back({t.key.str(), t.value.str(), t.effect.str(), t.time_added});
  }
  if (node.ready == kube::ConditionStatus::True)
    view.ready = true;
  else if (node.ready == kube::ConditionStatus::False)
    view.ready = false;
  for (const auto& [name, q] : node.allocatable.items())
    view.allocatable[name.str()] = q.value();
  view.unschedulable = node.unschedulable;
  view.deleting = node.meta.deletion_timestamp.has_value();
  return view;
}

kube::Lookup labels_lookup(const kube::StringMap& labels) {
  return [&labels](std::string_view key) { return labels.get(key); };
}

bool is_running_job(const kube::Pod& pod, const kube::LabelSelector& job_selector) {
  if (pod.node_name.empty() || pod.terminal() || pod.owned_by_daemonset()) return false;
  return job_selector.empty() || job_selector.matches(labels_lookup(pod.meta.labels));
}

}  // namespace respool::reconcilers
