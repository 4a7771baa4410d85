#include "reconcilers/driverupgrade/driver_setup.hpp"

#include "reconcilers/driverupgrade/driver_reconciler.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

ControllerState add_driver_upgrade_controller(runtime::Manager& manager, Context& ctx,
                                              const Options& options) {
  auto reconciler = std::make_shared<DriverReconciler>(ctx);
  auto& pools = *ctx.caches.pools;
  runtime::ControllerOptions controller_options;
  controller_options.name = "driverupgrade";
  controller_options.workers = options.workers;
  auto& controller = manager.add_controller(
      reporting_failures(ctx, pools, reconcile_with(*reconciler)), std::move(controller_options));
  controller.watch(pools);  // the spec (versions, mode, batch), the phase (D3)
  controller.watch(*ctx.caches.nodes, std::function<Keys(const kube::Node&)>(pool_of<kube::Node>));
  controller.watch(*ctx.caches.plugins,
                   std::function<Keys(const kube::Unstructured&)>([](const kube::Unstructured& u) {
                     if (!u.meta.labels.get(policy::kDriverLabel)) return Keys{};
                     return pool_of(u);
                   }));
  controller.watch(*ctx.caches.pods, pool_of_pod_node(*ctx.caches.nodes));
  requeue_on_catalog_change(ctx, controller, pools);
  return reconciler;
}

}  // namespace respool::reconcilers
