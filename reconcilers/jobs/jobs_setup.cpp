#include "reconcilers/jobs/jobs_setup.hpp"

#include <memory>

#include "reconcilers/jobs/pool_jobs_reconciler.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/pool_jobs.hpp"
#include "reconcilers/watch_keys.hpp"

namespace respool::reconcilers {

namespace {

// Q1: the pool an unbound, live pod waits for (its selector's, else its toleration's).
Keys waiting_pool(const kube::Pod& pod) {
  if (!pod.node_name.empty() || pod.terminal()) return {};
  auto selected = pod.node_selector.get(policy::kPoolLabel);
  auto tolerated = pod.tolerations.get(policy::kPoolTaintKey);
  std::string pool = policy::pool_waited_for(selected.value_or(""), tolerated.value_or(""));
  return pool.empty() ? Keys{} : Keys{std::move(pool)};
}

// Every pool a pod event concerns: the one of its node, the one it waits for.
Keys pools_of_pod(const runtime::Informer<kube::Node>& nodes, const kube::Pod& pod) {
  if (pod.node_name.empty()) return waiting_pool(pod);
  auto node = nodes.store().get(pod.node_name.view());
  return node ? pool_of(*node) : Keys{};
}

// Q4: pod and pool events reconcile after the rest of the pool's write interval, so that a
// churning pool costs one reconcile (and at most one write) per interval, not one per event.
template <class T, class Map>
void watch_delayed(runtime::Informer<T>& informer, runtime::Controller& controller,
                   PoolJobsReconciler& reconciler, Map map) {
  auto enqueue = [&controller, &reconciler, map](const T& object) {
    for (const std::string& pool : map(object))
      reconciler.enqueue(controller.queue(), pool);
  };
  typename runtime::Informer<T>::Handlers h;
  h.on_add = [enqueue](const auto& p) { enqueue(*p); };
  h.on_update = [enqueue](const auto& old, const auto& now) {
    enqueue(*old);
    enqueue(*now);
  };
  h.on_delete = [enqueue](const auto& p) { enqueue(*p); };
  informer.add_handlers(std::move(h));
}

}  // namespace

ControllerState add_jobs_controller(runtime::Manager& manager, Context& ctx,
                                    const Options& options) {
  auto reconciler = std::make_shared<PoolJobsReconciler>(ctx, PoolJobsConfig{});
  auto& pools = *ctx.caches.pools;
  auto& nodes = *ctx.caches.nodes;
  ctx.caches.pods->store().add_index(kByWaitingPool, waiting_pool);
  runtime::ControllerOptions controller_options;
  controller_options.name = "jobs";
  controller_options.workers = options.workers;
  auto& controller = manager.add_controller(
      reporting_failures(ctx, pools, reconcile_with(*reconciler)), std::move(controller_options));
  watch_delayed(pools, controller, *reconciler,
                [](const kube::Unstructured& p) { return Keys{p.meta.name}; });
  watch_delayed(*ctx.caches.pods, controller, *reconciler,
                [&nodes](const kube::Pod& pod) { return pools_of_pod(nodes, pod); });
  // A node's capacity and cordon change the largest free amount; its pool label, the pool.
  watch_delayed(nodes, controller, *reconciler, [](const kube::Node& n) { return pool_of(n); });
  requeue_on_catalog_change(ctx, controller, pools);
  return reconciler;
}

}  // namespace respool::reconcilers
