#include "reconcilers/finalizer.hpp"

#include <algorithm>

namespace respool::reconcilers {

bool has_finalizer(const kube::ObjectMeta& meta, std::string_view finalizer) {
  return std::find(meta.finalizers.begin(), meta.finalizers.end(), finalizer) !=
         meta.finalizers.end();
}

Outcome<FinalizerWrite> set_finalizer(kube::Client& client, const kube::Resource& resource,
                                      const kube::Unstructured& object, std::string_view finalizer,
                                      bool present) {
  if (has_finalizer(object.meta, finalizer) == present) return FinalizerWrite::Unchanged;
  kube::Json list = kube::Json::array();
  for (const auto& existing : object.meta.finalizers) {
    if (existing != finalizer) list.push_back(existing);
  }
  if (present) list.push_back(finalizer);
  const kube::Json patch = {
      {"metadata", {{"finalizers", list}, {"resourceVersion", object.meta.resource_version}}}};
  auto r = client.patch(resource, object.meta.namespace_.str(), object.meta.name,
                        kube::PatchType::Merge, patch);
  if (r) return FinalizerWrite::Written;
  if (r.error().is(kube::Error::Kind::Conflict)) return FinalizerWrite::Conflict;
  if (r.error().is(kube::Error::Kind::NotFound)) return FinalizerWrite::Gone;
  return failed(std::string(present ? "adding" : "removing") + " the finalizer " +
                    std::string(finalizer) + " of " + resource.kind + " " + object.meta.name,
                r.error());
}

}  // namespace respool::reconcilers
