// Observe: the pool's accelerator nodes with a target version, their upgrade as their labels
// record it, and on each the pool's driver pod and the running job pods; sorted by name.
#include <algorithm>

#include "reconcilers/driverupgrade/driver_reconciler.hpp"
#include "reconcilers/policy/driver_upgrade_status.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/views.hpp"

namespace respool::reconcilers {

namespace {

// The pool's driver pod on the node (the live one wins over one on its way out), and the job
// pods beside it.
void observe_pods(const Context& ctx, const std::string& pool, DriverMember& m) {
  for (const auto& pod : ctx.caches.pods->store().by_index(kByNode, m.view->name)) {
    auto version = pod->meta.annotations.get(policy::kDriverVersionLabel);
    auto pool_label = pod->meta.labels.get(policy::kPoolLabel);
    if (version && pool_label && *pool_label == pool && pod->owned_by_daemonset()) {
      policy::DriverPod d{pod->meta.name, std::string(*version),
                          pod->ready && pod->phase == "Running",
                          pod->meta.deletion_timestamp.has_value()};
      auto& current = m.node.driver_pod;
      if (!current || (current->deleting && !d.deleting)) current = d;
    } else if (is_running_job(*pod, ctx.job_selector)) {
      ++m.node.jobs;
      m.job_pods.push_back(pod->meta.key());
    }
  }
}

}  // namespace

std::vector<DriverMember> DriverReconciler::observe(const std::string& pool,
                                                    const policy::Catalog& catalog,
                                                    const policy::ResourcePoolSpec& spec) const {
  std::vector<DriverMember> members;
  for (const auto& node : ctx_.caches.nodes->store().by_index(kByPool, pool)) {
    auto view = ctx_.node_views->view(node);
    const policy::PoolNode pn = policy::pool_node(*view, catalog, 0);
    const policy::Flavor* flavor = catalog.flavor(pn.flavor);
    const std::string target = policy::driver_target(catalog, spec, pn.flavor);
    if (!flavor || target.empty()) continue;
    DriverMember m{policy::read_upgrade_node(*view, target),
                   view,
                   flavor->accelerator.type,
                   {},
                   {"v1", "Node", node->meta.name, "", node->meta.uid.str()}};
    const auto standing = policy::upgrade_standing(
        pn.state.state, m.node.state, view->annotations.contains(policy::kNodeOperationAnnotation));
    m.node.healthy = standing.healthy;
    m.node.held = standing.held;
    m.node.admitting = standing.admitting;
    observe_pods(ctx_, pool, m);
    members.push_back(std::move(m));
  }
  std::sort(members.begin(), members.end(),
            [](const DriverMember& a, const DriverMember& b) { return a.node.name < b.node.name; });
  return members;
}

}  // namespace respool::reconcilers
