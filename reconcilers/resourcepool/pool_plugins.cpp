// The plug-ins of a pool's job types (P2, P12): rendered from the catalog, created, updated when
// the rendering changes, removed when their job type goes, and reported with what they take
// from the pool.
#include "reconcilers/daemonset_sync.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/plugins.hpp"
#include "reconcilers/resourcepool/pool_reconciler.hpp"

namespace respool::reconcilers {

namespace {

constexpr const char* kHashAnnotation = "respool.io/plugin-hash";

}  // namespace

Outcome<std::vector<policy::PluginStatus>> PoolReconciler::sync_plugins(
    const kube::Unstructured& pool, const std::vector<policy::JobType>& job_types, int pool_nodes) {
  auto catalog = ctx_.catalog->get();
  const policy::PoolRef ref{pool.meta.name, pool.meta.uid.str()};
  auto rendered = policy::render_plugins(*catalog, ref, job_types, ctx_.operator_namespace);
  std::vector<policy::InstalledPlugin> installed;
  for (const auto& p : ctx_.caches.plugins->store().by_index(kByPool, pool.meta.name)) {
    if (p->meta.labels.get(policy::kDriverLabel)) continue;  // the driver-upgrade controller's
    installed.push_back(
        {p->object.value("kind", "DaemonSet"), p->meta.namespace_.str(), p->meta.name});
  }
  for (const auto& stale : policy::stale_plugins(installed, rendered)) {
    if (auto r = remove_daemonset(*ctx_.client, stale.namespace_name, stale.name, "plug-in"); !r)
      return std::unexpected(r.error());
  }

  std::vector<policy::PluginStatus> statuses;
  for (auto& plugin : rendered) {
    if (plugin.kind != "DaemonSet") continue;  // refused when the catalog was read
    auto synced = sync_daemonset(*ctx_.client, *ctx_.caches.plugins,
                                 {plugin.namespace_name, plugin.name, plugin.manifest, "plug-in"},
                                 kHashAnnotation);
    if (!synced) return std::unexpected(synced.error());
    const bool ready = synced->current && policy::workload_ready(synced->current->object);
    statuses.push_back(policy::plugin_status(plugin, pool_nodes, ready));
  }
  return statuses;
}

Outcome<bool> PoolReconciler::remove_plugins(const std::string& pool) {
  auto installed = ctx_.caches.plugins->store().by_index(kByPool, pool);
  for (const auto& p : installed) {
    if (p->meta.deletion_timestamp) continue;
    if (auto r = remove_daemonset(*ctx_.client, p->meta.namespace_.str(), p->meta.name, "plug-in");
        !r)
      return std::unexpected(r.error());
  }
  return installed.empty();
}

}  // namespace respool::reconcilers
