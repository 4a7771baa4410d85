#pragma once
// The policy layer's views of cached objects. The cache keeps compact typed objects (kube::Node,
// kube::Pod); policy decisions take plain views of them.

#include <string>

#include "operator/kube/objects.hpp"
#include "operator/kube/selector.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::reconcilers {

policy::NodeView to_node_view(const kube::Node& node);

// A pod counts as a running job when it is bound to a node, not terminal, not owned by a
// DaemonSet, and matches the job selector (ARCHITECTURE.md).
bool is_running_job(const kube::Pod& pod, const kube::LabelSelector& job_selector);

// A Lookup over compact labels, for selectors.
kube::Lookup labels_lookup(const kube::StringMap& labels);

}  // namespace respool::reconcilers
