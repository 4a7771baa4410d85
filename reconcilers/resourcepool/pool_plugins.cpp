// The plug-ins of a pool's job types (P2, P12): rendered from the catalog, created, updated when
// the rendering changes, removed when their job type goes, and reported with what they take
// from the pool.
#include <cstdio>

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/plugins.hpp"
#include "reconcilers/resourcepool/pool_reconciler.hpp"
#include "reconcilers/stable_hash.hpp"

namespace respool::reconcilers {

namespace {

constexpr const char* kHashAnnotation = "respool.io/plugin-hash";

}  // namespace

std::expected<std::vector<policy::PluginStatus>, std::string> PoolReconciler::sync_plugins(
    const kube::Unstructured& pool, const std::vector<policy::JobType>& job_types, int pool_nodes) {
  auto catalog = ctx_.catalog->get();
  const policy::PoolRef ref{pool.meta.name, pool.meta.uid.str()};
  auto rendered = policy::render_plugins(*catalog, ref, job_types, ctx_.operator_namespace);
  const auto& res = kube::resources::daemonsets;

  std::vector<policy::InstalledPlugin> installed;
  for (const auto& p : ctx_.caches.plugins->store().by_index(kByPool, pool.meta.name)) {
    if (p->meta.labels.get(policy::kDriverLabel)) continue;  // the driver-upgrade controller's
    installed.push_back(
        {p->object.value("kind", "DaemonSet"), p->meta.namespace_.str(), p->meta.name});
  }
  for (const auto& stale : policy::stale_plugins(installed, rendered)) {
    auto r = ctx_.client->remove(res, stale.namespace_name, stale.name);
    if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
      return std::unexpected("removing plug-in " + stale.namespace_name + "/" + stale.name + ": " +
                             r.error().describe());
    }
  }

  std::vector<policy::PluginStatus> statuses;
  for (auto& plugin : rendered) {
    if (plugin.kind != "DaemonSet") continue;  // refused when the catalog was read
    kube::Json manifest = plugin.manifest;
    const std::string hash = stable_hash(manifest.dump());
    manifest["metadata"]["annotations"][kHashAnnotation] = hash;
    auto observed = ctx_.caches.plugins->store().get(plugin.namespace_name + "/" + plugin.name);
    bool ready = false;
    if (!observed) {
      auto r = ctx_.client->create(res, plugin.namespace_name, manifest);
      if (!r && !r.error().is(kube::Error::Kind::AlreadyExists)) {
        return std::unexpected("installing plug-in " + plugin.namespace_name + "/" + plugin.name +
                               ": " + r.error().describe());
      }
    } else {
      auto current = observed->meta.annotations.get(kHashAnnotation);
      if (!current || *current != hash) {
        manifest["metadata"]["resourceVersion"] = observed->meta.resource_version;
        auto r = ctx_.client->update(res, plugin.namespace_name, manifest);
        if (!r && !r.error().is(kube::Error::Kind::Conflict)) {
          return std::unexpected("updating plug-in " + plugin.namespace_name + "/" + plugin.name +
                                 ": " + r.error().describe());
        }
      } else {
        ready = policy::workload_ready(observed->object);
      }
    }
    statuses.push_back(policy::plugin_status(plugin, pool_nodes, ready));
  }
  return statuses;
}

std::expected<bool, std::string> PoolReconciler::remove_plugins(const std::string& pool) {
  auto installed = ctx_.caches.plugins->store().by_index(kByPool, pool);
  for (const auto& p : installed) {
    if (p->meta.deletion_timestamp) continue;
    auto r =
        ctx_.client->remove(kube::resources::daemonsets, p->meta.namespace_.view(), p->meta.name);
    if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
      return std::unexpected("removing plug-in " + p->meta.key() + ": " + r.error().describe());
    }
  }
  return installed.empty();
}

}  // namespace respool::reconcilers
