#include "sandbox/simulator/cluster.hpp"

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {

std::string owner_key(std::string_view kind, std::string_view ns, std::string_view name) {
  std::string out;
  out.append(kind).append("/").append(ns).append("/").append(name);
  return out;
}

std::string owner_key(const kube::ObjectMeta& meta) {
  const kube::OwnerReference* ref = meta.controller_ref();
  if (!ref) return {};
  return owner_key(ref->kind.view(), meta.namespace_.view(), ref->name.view());
}

bool simulated(const Json& node) {
  return annotation(node, kSimulatedAnnotation).value_or("") == "true";
}

void strip_managed_fields(kube::Unstructured& object) {
  if (auto m = object.object.find("metadata"); m != object.object.end() && m->is_object())
    m->erase("managedFields");
}

void add_pod_indexes(ObjectInformer& pods) {
  pods.store().add_index(kByNode, [](const kube::Unstructured& pod) {
    return std::vector<std::string>{string_at(pod.object, {"spec", "nodeName"})};
  });
  pods.store().add_index(kByOwner, [](const kube::Unstructured& pod) {
    std::string key = owner_key(pod.meta);
    if (key.empty()) return std::vector<std::string>{};
    return std::vector<std::string>{std::move(key)};
  });
}

std::string object_key(const Json& object) {
  const std::string ns = string_at(object, {"metadata", "namespace"});
  const std::string name = string_at(object, {"metadata", "name"});
  return ns.empty() ? name : ns + "/" + name;
}

runtime::ControllerOptions controller_options(std::string name, int workers) {
  runtime::ControllerOptions options;
  options.name = std::move(name);
  options.workers = workers;
  return options;
}

runtime::Duration seconds(double s) {
  return std::chrono::duration_cast<runtime::Duration>(std::chrono::duration<double>(s));
}

}  // namespace respool::sandbox::sim
