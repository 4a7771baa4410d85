#include "reconcilers/context.hpp"

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/keys.hpp"

namespace respool::reconcilers {

runtime::ObjectReference reference_to(const kube::Unstructured& object) {
  runtime::ObjectReference ref;
  ref.api_version = object.object.value("apiVersion", std::string(policy::kApiVersion));
  ref.kind = object.object.value("kind", "");
  ref.name = object.meta.name;
  ref.ns = object.meta.namespace_.str();
  ref.uid = object.meta.uid.str();
  return ref;
}

runtime::Reconciler reporting_failures(const Context& ctx,
                                       const runtime::Informer<kube::Unstructured>& cache,
                                       runtime::Reconciler reconcile) {
  return [&ctx, &cache, reconcile = std::move(reconcile)](
             const std::string& key) -> std::expected<runtime::ReconcileResult, std::string> {
    auto result = reconcile(key);
    if (!result) {
      if (auto object = cache.store().get(key)) {
        ctx.events->event(reference_to(*object), runtime::EventType::Warning, "ReconcileFailed",
                          "Reconcile", result.error());
      }
    }
    return result;
  };
}

bool node_writes_behind(const Context& ctx, const std::string& pool, runtime::TimePoint now) {
  return ctx.node_writes->behind(pool, now, [&ctx](const std::string& node) {
    auto cached = ctx.caches.nodes->store().get(node);
    return cached ? std::optional(cached->meta.resource_version) : std::nullopt;
  });
}

void write_audit(const std::string& line) {
  runtime::log::audit(line);
}

}  // namespace respool::reconcilers
