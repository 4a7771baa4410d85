#include "reconcilers/nodehealth/node_health_setup.hpp"

#include <memory>

#include "reconcilers/nodehealth/node_health_reconciler.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

ControllerState add_node_health_controller(runtime::Manager& manager, Context& ctx,
                                           const Options& options) {
  // The shared node cache, which keeps the agent's conditions for this controller
  // (shared_caches.cpp): a cache of its own held each pool node whole, 6 KiB apiece.
  auto& nodes = *ctx.caches.nodes;
  auto reconciler = std::make_shared<NodeHealthReconciler>(ctx, nodes, manager.metrics(),
                                                           options.node_agent_heartbeat_period);
  runtime::ControllerOptions controller_options;
  controller_options.name = "nodehealth";
  controller_options.workers = options.workers;
  auto& controller =
      manager.add_controller(reconcile_with(*reconciler), std::move(controller_options));
  // Pool nodes only: the others carry no isolation of respool's.
  controller.watch(nodes, std::function<Keys(const kube::Node&)>([](const kube::Node& n) {
                     return pool_of(n).empty() ? Keys{} : Keys{n.meta.name};
                   }));
  // A flavor's count may change with the catalog (F5): every pool node again.
  ctx.on_catalog_change.push_back([&controller, &nodes] {
    for (const auto& node : nodes.store().list())
      if (node->meta.labels.contains(policy::kPoolLabel)) controller.enqueue(node->meta.name);
  });
  return reconciler;
}

}  // namespace respool::reconcilers
