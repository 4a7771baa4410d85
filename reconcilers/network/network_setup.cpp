#include "reconcilers/network/network_setup.hpp"

#include "reconcilers/network/network_reconciler.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

ControllerState add_network_controller(runtime::Manager& manager, Context& ctx, const Options&) {
  auto reconciler = std::make_shared<NetworkReconciler>(ctx);
  auto& networks = *ctx.caches.networks;
  runtime::ControllerOptions options;
  options.name = "network";
  options.workers = 1;  // verdicts depend on every network: one at a time
  auto& controller = manager.add_controller(
      reporting_failures(ctx, networks, reconcile_with(*reconciler)), std::move(options));
  controller.watch(networks, all_keys_of<kube::Unstructured>(networks));
  controller.watch(*ctx.caches.pools, std::function<Keys(const kube::Unstructured&)>(pool_network));
  requeue_on_catalog_change(ctx, controller, networks);
  return reconciler;
}

}  // namespace respool::reconcilers
