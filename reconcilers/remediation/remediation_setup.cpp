#include "reconcilers/remediation/remediation_setup.hpp"

#include <memory>

#include "reconcilers/remediation/remediation_reconciler.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

ControllerState add_remediation_controller(runtime::Manager& manager, Context& ctx,
                                           const Options& options) {
  auto reconciler = std::make_shared<RemediationReconciler>(ctx, manager.metrics());
  auto& pools = *ctx.caches.pools;
  runtime::ControllerOptions controller_options;
  controller_options.name = "remediation";
  controller_options.workers = options.workers;
  auto& controller = manager.add_controller(
      reporting_failures(ctx, pools, reconcile_with(*reconciler)), std::move(controller_options));
  controller.watch(pools);  // spec.remediation, its memory, the driver upgrade (N6)
  // A NodeOperation's progress (the automatic ones' steps; a person's holds a node).
  controller.watch(*ctx.caches.operations,
                   std::function<Keys(const kube::Unstructured&)>(operation_pool));
  // Fault taints and node states, of pools with remediation only.
  controller.watch(
      *ctx.caches.nodes, std::function<Keys(const kube::Node&)>([&pools](const kube::Node& n) {
        Keys pool = pool_of(n);
        if (pool.empty()) return Keys{};
        auto object = pools.store().get(pool[0]);
        if (!object || !object->object.value("spec", kube::Json::object()).contains("remediation"))
          return Keys{};
        return pool;
      }));
  requeue_on_catalog_change(ctx, controller, pools);
  return reconciler;
}

}  // namespace respool::reconcilers
