#include "reconcilers/nodehealth/node_health_setup.hpp"

#include <memory>

#include "reconcilers/nodehealth/node_health_reconciler.hpp"
#include "reconcilers/policy/keys.hpp"

namespace respool::reconcilers {

ControllerState add_node_health_controller(runtime::Manager& manager, Context& ctx,
                                           const Options& options) {
  runtime::InformerOptions node_options;
  node_options.resource = kube::resources::nodes;
  node_options.label_selector = std::string(policy::kPoolLabel);
  auto& nodes = manager.add_informer<kube::Unstructured>(node_options, NodeHealthReconciler::trim);
  auto reconciler = std::make_shared<NodeHealthReconciler>(ctx, nodes, manager.metrics(),
                                                           options.node_agent_heartbeat_period);
  runtime::ControllerOptions controller_options;
  controller_options.name = "nodehealth";
  controller_options.workers = options.workers;
  auto& controller =
      manager.add_controller(reconcile_with(*reconciler), std::move(controller_options));
  controller.watch(nodes);
  // A flavor's count may change with the catalog (F5): every pool node again.
  requeue_on_catalog_change(ctx, controller, nodes);
  return reconciler;
}

}  // namespace respool::reconcilers
