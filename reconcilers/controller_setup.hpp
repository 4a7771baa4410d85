#pragma once
// The shape every controller's registration has, as controller-runtime's SetupWithManager:
// add_<name>_controller(manager, ctx, options) declares the informers only it uses, its indexes,
// its reconciler and the watches that map events to its keys, and says what to re-enqueue when
// the catalog changes (ctx.on_catalog_change). It returns what must live as long as the manager
// runs (its reconciler), or nullptr when the options turn it off. reconcilers/setup.cpp calls
// each from one table: a new controller is its own folder and one line there.

#include <memory>

#include "operator/runtime/manager.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/options.hpp"

namespace respool::reconcilers {

// Owns a controller's reconciler, whatever its type (the reconcilers share no base).
using ControllerState = std::shared_ptr<void>;
using AddController = ControllerState (*)(runtime::Manager&, Context&, const Options&);

// A reconciler's reconcile(key) as the controller's Reconciler: the runtime retries any error
// with backoff and logs its message; the kinds matter only inside the reconciler.
template <class R>
runtime::Reconciler reconcile_with(R& reconciler) {
  return [&reconciler](
             const std::string& key) -> std::expected<runtime::ReconcileResult, std::string> {
    Outcome<runtime::ReconcileResult> result = reconciler.reconcile(key);
    if (!result) return std::unexpected(std::move(result.error().message));
    return *result;
  };
}

// A changed catalog may change every decision: every object of `cache` goes through
// `controller` again.
inline void requeue_on_catalog_change(Context& ctx, runtime::Controller& controller,
                                      const runtime::Informer<kube::Unstructured>& cache) {
  ctx.on_catalog_change.push_back([&controller, &cache] {
    for (const auto& key : cache.store().keys())
      controller.enqueue(key);
  });
}

}  // namespace respool::reconcilers
