#include "sandbox/simulator/workload_io.hpp"

#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {

void add_namespace_index(ObjectInformer& informer) {
  informer.store().add_index(kByNamespace, [](const kube::Unstructured& object) {
    return std::vector<std::string>{object.meta.namespace_.str()};
  });
}

std::expected<void, std::string> write_status(kube::Client& client, const kube::Resource& resource,
                                              const Json& object, const Json& status,
                                              const Json& metadata) {
  const Json& current = at_path(object, {"status"});
  const bool status_changed = !status.is_null() && status != current;
  if (!status_changed && metadata.is_null()) return {};
  Json patch = Json::object();
  if (status_changed) patch["status"] = object_merge_patch(current, status);
  if (!metadata.is_null()) patch["metadata"] = metadata;
  kube::WriteOptions options;
  options.subresource = "status";
  auto written = client.patch(resource, namespace_of(object), name_of(object),
                              kube::PatchType::Merge, patch, options);
  if (!written && !written.error().is(kube::Error::Kind::NotFound))
    return std::unexpected("status: " + written.error().describe());
  return {};
}

std::vector<const Json*> settle_claims(kube::Client& client, const kube::Resource& resource,
                                       const Claimed& claimed, const Json& owner_reference,
                                       std::string& failures) {
  std::vector<const Json*> held = claimed.owned;
  for (const Json* object : claimed.adopt) {
    auto patched = client.patch(resource, namespace_of(*object), name_of(*object),
                                kube::PatchType::Merge, adopt_patch(*object, owner_reference));
    if (patched) {
      held.push_back(object);
    } else if (!patched.error().is(kube::Error::Kind::NotFound)) {
      failures += " adopt " + name_of(*object) + ": " + patched.error().describe() + ";";
    }
  }
  const std::string owner_uid = owner_reference.value("uid", "");
  for (const Json* object : claimed.release) {
    auto patched = client.patch(resource, namespace_of(*object), name_of(*object),
                                kube::PatchType::Merge, release_patch(*object, owner_uid));
    if (!patched && !patched.error().is(kube::Error::Kind::NotFound))
      failures += " release " + name_of(*object) + ": " + patched.error().describe() + ";";
  }
  return held;
}

}  // namespace respool::sandbox::sim
