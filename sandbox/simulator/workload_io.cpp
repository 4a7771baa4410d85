#include "sandbox/simulator/workload_io.hpp"

#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {

void add_namespace_index(ObjectInformer& informer) {
  informer.store().add_index(kByNamespace, [](const kube::Unstructured& object) {
    return std::vector<std::string>{object.meta.namespace_.str()};
  });
}

std::function<std::vector<std::string>(const kube::Unstructured&)> controlled_by(std::string kind) {
  return [kind = std::move(kind)](const kube::Unstructured& object) {
    const kube::OwnerReference* ref = object.meta.controller_ref();
    if (!ref || ref->kind.view() != kind) return std::vector<std::string>{};
    return std::vector<std::string>{object.meta.namespace_.str() + "/" + ref->name.str()};
  };
}

std::vector<std::string> claimants(
    const kube::Unstructured& object, std::string_view kind, ObjectInformer& owners,
    const std::function<kube::LabelSelector(const Json&)>& selector_of) {
  if (object.meta.controller_ref()) return controlled_by(std::string(kind))(object);
  std::vector<std::string> keys;
  const Json& labels = at_path(object.object, {"metadata", "labels"});
  if (!labels.is_object() || labels.empty()) return keys;
  for (const auto& owner : owners.store().by_index(kByNamespace, object.meta.namespace_.view()))
    if (selector_of(owner->object).matches(labels)) keys.push_back(owner->meta.key());
  return keys;
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
