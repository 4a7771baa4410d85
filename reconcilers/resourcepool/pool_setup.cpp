#include "reconcilers/resourcepool/pool_setup.hpp"

#include "reconcilers/resourcepool/pool_reconciler.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

ControllerState add_pool_controller(runtime::Manager& manager, Context& ctx,
                                    const Options& options) {
  auto reconciler = std::make_shared<PoolReconciler>(ctx);
  auto& pools = *ctx.caches.pools;
  runtime::ControllerOptions controller_options;
  controller_options.name = "resourcepool";
  controller_options.workers = options.workers;
  auto& controller = manager.add_controller(
      reporting_failures(ctx, pools, reconcile_with(*reconciler)), std::move(controller_options));
  controller.watch(pools);
  // A node event concerns its pool; a free node concerns every pool that may be waiting for one.
  controller.watch(*ctx.caches.nodes,
                   std::function<Keys(const kube::Node&)>([&pools](const kube::Node& n) {
                     Keys pool = pool_of(n);
                     return pool.empty() ? pools.store().keys() : pool;
                   }));
  // A pod's coming and going matters to the pool of its node (drains, running jobs).
  controller.watch(*ctx.caches.pods, pool_of_pod_node(*ctx.caches.nodes));
  controller.watch(*ctx.caches.plugins,
                   std::function<Keys(const kube::Unstructured&)>(pool_of<kube::Unstructured>));
  controller.watch(
      *ctx.caches.networks,
      std::function<Keys(const kube::Unstructured&)>([&pools](const kube::Unstructured& n) {
        Keys keys;
        for (const auto& p : pools.store().by_index(kByNetwork, n.meta.name))
          keys.push_back(p->meta.name);
        return keys;
      }));
  controller.watch(*ctx.caches.operations,
                   std::function<Keys(const kube::Unstructured&)>(operation_pool));
  requeue_on_catalog_change(ctx, controller, pools);
  return reconciler;
}

}  // namespace respool::reconcilers
