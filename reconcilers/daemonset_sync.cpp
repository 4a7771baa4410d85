#include "reconcilers/daemonset_sync.hpp"

#include "reconcilers/stable_hash.hpp"

namespace respool::reconcilers {

Outcome<DaemonSetSync> sync_daemonset(kube::Client& client,
                                      const runtime::Informer<kube::Unstructured>& cache,
                                      const RenderedDaemonSet& wanted,
                                      std::string_view hash_annotation) {
  const auto& res = kube::resources::daemonsets;
  const std::string where =
      std::string(wanted.what) + " " + wanted.namespace_name + "/" + wanted.name;
  kube::Json manifest = wanted.manifest;
  const std::string hash = stable_hash(manifest.dump());
  manifest["metadata"]["annotations"][std::string(hash_annotation)] = hash;
  auto observed = cache.store().get(wanted.namespace_name + "/" + wanted.name);
  if (!observed) {
    auto r = client.create(res, wanted.namespace_name, manifest);
    if (!r && !r.error().is(kube::Error::Kind::AlreadyExists))
      return failed("creating " + where, r.error());
    return DaemonSetSync{true, nullptr};
  }
  auto current = observed->meta.annotations.get(hash_annotation);
  if (current && *current == hash) return DaemonSetSync{false, observed};
  manifest["metadata"]["resourceVersion"] = observed->meta.resource_version;
  auto r = client.update(res, wanted.namespace_name, manifest);
  if (!r && !lost_race(r.error())) return failed("updating " + where, r.error());
  return DaemonSetSync{true, nullptr};
}

Outcome<void> remove_daemonset(kube::Client& client, const std::string& namespace_name,
                               const std::string& name, std::string_view what) {
  auto r = client.remove(kube::resources::daemonsets, namespace_name, name);
  if (!r && !r.error().is(kube::Error::Kind::NotFound)) {
    return failed("removing " + std::string(what) + " " + namespace_name + "/" + name, r.error());
  }
  return {};
}

}  // namespace respool::reconcilers
