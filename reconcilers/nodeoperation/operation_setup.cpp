#include "reconcilers/nodeoperation/operation_setup.hpp"

#include "reconcilers/nodeoperation/operation_reconciler.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

namespace {

runtime::Informer<kube::Unstructured>& add_reset_jobs(runtime::Manager& manager,
                                                      const Options& options) {
  runtime::InformerOptions jobs;
  jobs.resource = kube::resources::jobs;
  jobs.label_selector = std::string(policy::kNodeOperationLabel);
  jobs.ns = options.operator_namespace;  // reset Jobs live there, and RBAC grants no more
  auto& informer = manager.add_informer<kube::Unstructured>(jobs);
  informer.store().add_index(kByPool, pool_of<kube::Unstructured>);
  return informer;
}

}  // namespace

ControllerState add_node_operation_controller(runtime::Manager& manager, Context& ctx,
                                              const Options& options) {
  ctx.caches.reset_jobs = &add_reset_jobs(manager, options);
  auto reconciler = std::make_shared<OperationReconciler>(ctx);
  auto& pools = *ctx.caches.pools;
  auto& operations = *ctx.caches.operations;
  runtime::ControllerOptions controller_options;
  controller_options.name = "nodeoperation";
  controller_options.workers = options.workers;
  auto& controller = manager.add_controller(
      reporting_failures(ctx, pools, reconcile_with(*reconciler)), std::move(controller_options));
  controller.watch(operations, std::function<Keys(const kube::Unstructured&)>(operation_pool));
  controller.watch(pools);  // the ledger, the spec (limits), deletion
  controller.watch(*ctx.caches.reset_jobs,
                   std::function<Keys(const kube::Unstructured&)>(pool_of<kube::Unstructured>));
  // Nodes of a pool with operations, and nodes that just left one (the update's old side).
  controller.watch(*ctx.caches.nodes,
                   std::function<Keys(const kube::Node&)>([&operations](const kube::Node& n) {
                     Keys pool = pool_of(n);
                     if (pool.empty() || operations.store().by_index(kByPool, pool[0]).empty())
                       return Keys{};
                     return pool;
                   }));
  // Pods on nodes in an operation: drains.
  controller.watch(*ctx.caches.pods, pool_of_pod_node(*ctx.caches.nodes, [](const kube::Node& n) {
    return n.meta.annotations.get(policy::kNodeOperationAnnotation).has_value();
  }));
  requeue_on_catalog_change(ctx, controller, pools);
  return reconciler;
}

}  // namespace respool::reconcilers
