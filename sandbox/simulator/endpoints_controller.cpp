#include "sandbox/simulator/endpoints_controller.hpp"

#include "sandbox/simulator/endpoints_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_io.hpp"
#include "sandbox/simulator/workload_resources.hpp"

namespace respool::sandbox::sim {
namespace {

using runtime::ReconcileResult;

constexpr const char* kByService = "service";  // slices: "namespace/service"

// The Services (keys) whose selector matches the pod, in its namespace.
std::vector<std::string> services_of_pod(ObjectInformer& services, const kube::Unstructured& pod) {
  std::vector<std::string> keys;
  const Json& labels = at_path(pod.object, {"metadata", "labels"});
  if (!labels.is_object() || labels.empty()) return keys;
  for (const auto& s : services.store().by_index(kByNamespace, pod.meta.namespace_.view()))
    if (map_selector(at_path(s->object, {"spec", "selector"})).matches(labels))
      keys.push_back(s->meta.key());
  return keys;
}

// What both controllers react to: their Service, its pods, what they publish.
void watch_service_inputs(runtime::Controller& controller, Cluster& cluster,
                          ServiceInformers informers, ObjectInformer& published) {
  add_namespace_index(informers.services);
  add_namespace_index(cluster.pods);
  controller.watch<kube::Unstructured>(informers.services);
  controller.watch<kube::Unstructured>(
      cluster.pods, [&services = informers.services](const kube::Unstructured& pod) {
        return services_of_pod(services, pod);
      });
  controller.watch<kube::Unstructured>(published, [](const kube::Unstructured& object) {
    auto service = label(object.object, kServiceNameLabel);
    return std::vector<std::string>{object.meta.namespace_.str() + "/" +
                                    service.value_or(object.meta.name)};
  });
}

std::vector<const Json*> pods_in(Cluster& cluster, const std::string& ns,
                                 std::vector<ObjectPtr>& holders) {
  holders = cluster.pods.store().by_index(kByNamespace, ns);
  std::vector<const Json*> out;
  for (const auto& p : holders)
    out.push_back(&p->object);
  return out;
}

bool has_selector(const Json& service) {
  return at_path(service, {"spec", "selector"}).is_object();
}

}  // namespace

EndpointsController::EndpointsController(Cluster& cluster, ServiceInformers informers)
    : SimController(cluster, "sandbox-endpoints", 2), informers_(informers) {
  watch_service_inputs(controller_, cluster, informers, informers.endpoints);
}

std::expected<ReconcileResult, std::string> EndpointsController::reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr service = informers_.services.store().get(key);
  ObjectPtr current = informers_.endpoints.store().get(key);
  if (!service) {
    // Unconditionally, as the real controller: our cache may not show a create of ours yet.
    auto removed = cluster_.client.remove(workload::endpoints, ns, name);
    if (!removed && !removed.error().is(kube::Error::Kind::NotFound))
      return std::unexpected("endpoints " + key + ": " + removed.error().describe());
    return ReconcileResult::done();
  }
  if (!has_selector(service->object)) return ReconcileResult::done();  // managed by its owner
  std::vector<ObjectPtr> holders;
  std::vector<const Json*> pods = pods_in(cluster_, ns, holders);
  Json subsets = endpoints_subsets(service->object, pods);
  Json labels = endpoints_labels(service->object);
  if (current && semantic_equal(at_path(current->object, {"subsets"}), subsets) &&
      semantic_equal(at_path(current->object, {"metadata", "labels"}), labels))
    return ReconcileResult::done();
  Json endpoints = current ? current->object
                           : Json{{"apiVersion", "v1"},
                                  {"kind", "Endpoints"},
                                  {"metadata", {{"name", name}, {"namespace", ns}}}};
  endpoints["metadata"]["labels"] = labels;
  const std::string trigger = last_change_trigger_time(service->object, pods);
  if (!trigger.empty()) endpoints["metadata"]["annotations"][kTriggerTimeAnnotation] = trigger;
  if (subsets.empty()) {
    endpoints.erase("subsets");
  } else {
    endpoints["subsets"] = subsets;
  }
  auto written = current ? cluster_.client.update(workload::endpoints, ns, endpoints)
                         : cluster_.client.create(workload::endpoints, ns, endpoints);
  if (!written) {
    // A cache behind our own write: look again once it has caught up.
    if (written.error().is(kube::Error::Kind::AlreadyExists) ||
        written.error().is(kube::Error::Kind::Conflict))
      return ReconcileResult{true};
    if (!written.error().is(kube::Error::Kind::NotFound))
      return std::unexpected("endpoints " + key + ": " + written.error().describe());
  }
  return ReconcileResult::done();
}

EndpointSliceController::EndpointSliceController(Cluster& cluster, ServiceInformers informers)
    : SimController(cluster, "sandbox-endpointslice", 2),
      informers_(informers),
      written_(cluster.clock, cluster.timing.expectations_ttl) {
  ObjectInformer::Handlers gone;
  gone.on_delete = [this](const ObjectPtr& slice) { written_.gone(slice->meta.uid.str()); };
  informers.slices.add_handlers(std::move(gone));
  informers.slices.store().add_index(kByService, [](const kube::Unstructured& slice) {
    auto service = label(slice.object, kServiceNameLabel);
    if (!service || label(slice.object, kManagedByLabel) != kEndpointSliceController)
      return std::vector<std::string>{};
    return std::vector<std::string>{slice.meta.namespace_.str() + "/" + *service};
  });
  watch_service_inputs(controller_, cluster, informers, informers.slices);
}

std::expected<ReconcileResult, std::string> EndpointSliceController::reconcile(
    const std::string& key) {
  const std::string ns = key.substr(0, key.find('/'));
  const std::string service_name = key.substr(key.find('/') + 1);
  Overlaid overlaid =
      written_.overlay(informers_.slices.store().by_index(kByService, key), [&](const Json& slice) {
        return namespace_of(slice) == ns && label(slice, kServiceNameLabel) == service_name &&
               label(slice, kManagedByLabel) == kEndpointSliceController;
      });
  std::vector<const Json*> existing;
  for (const Json* slice : overlaid.objects)
    if (!marked_for_deletion(*slice)) existing.push_back(slice);
  std::sort(existing.begin(), existing.end(),
            [](const Json* a, const Json* b) { return name_of(*a) < name_of(*b); });
  std::string failures;
  auto remove_slice = [&](const Json& slice) {
    auto removed = cluster_.client.remove(workload::endpointslices, ns, name_of(slice));
    if (removed || removed.error().is(kube::Error::Kind::NotFound)) {
      written_.deleted(uid_of(slice));
    } else {
      failures += " delete " + name_of(slice) + ": " + removed.error().describe() + ";";
    }
  };
  ObjectPtr service = informers_.services.store().get(key);
  if (!service) {
    // The garbage collector takes slices with their Service; one made while the Service was
    // going (from a cache that still showed it) is taken here.
    for (const Json* slice : existing)
      remove_slice(*slice);
    if (!failures.empty()) return std::unexpected("endpointslices " + key + ":" + failures);
    return ReconcileResult::done();
  }
  if (!has_selector(service->object)) return ReconcileResult::done();
  const Json& svc = service->object;
  std::vector<ObjectPtr> holders;
  std::vector<const Json*> pods = pods_in(cluster_, ns, holders);
  std::vector<SliceContent> wanted = endpoint_slices(svc, pods, [&](const std::string& node) {
    ObjectPtr n = cluster_.nodes.store().get(node);
    return n ? label(n->object, "topology.kubernetes.io/zone").value_or("") : std::string();
  });
  const Json labels = endpoint_slice_labels(svc);
  const std::string trigger = last_change_trigger_time(svc, pods);
  std::vector<bool> used(existing.size(), false);
  for (const SliceContent& content : wanted) {
    // The first unused slice with the same ports, else a new one.
    const Json* match = nullptr;
    for (std::size_t i = 0; i < existing.size() && !match; ++i) {
      if (used[i] || !semantic_equal(at_path(*existing[i], {"ports"}), content.ports)) continue;
      used[i] = true;
      match = existing[i];
    }
    if (match && semantic_equal(at_path(*match, {"endpoints"}), content.endpoints) &&
        semantic_equal(at_path(*match, {"metadata", "labels"}), labels))
      continue;
    Json slice = match ? *match
                       : Json{{"apiVersion", "discovery.k8s.io/v1"},
                              {"kind", "EndpointSlice"},
                              {"metadata",
                               {{"generateName", name_of(svc) + "-"},
                                {"namespace", ns},
                                {"ownerReferences",
                                 Json::array({controller_reference(svc, "v1", "Service")})}}},
                              {"addressType", "IPv4"}};
    slice["metadata"]["labels"] = labels;
    if (!trigger.empty()) slice["metadata"]["annotations"][kTriggerTimeAnnotation] = trigger;
    slice["ports"] = content.ports;
    slice["endpoints"] = content.endpoints;
    auto written = match ? cluster_.client.update(workload::endpointslices, ns, slice)
                         : cluster_.client.create(workload::endpointslices, ns, slice);
    if (written) {
      written_.wrote(std::move(*written));
    } else if (written.error().is(kube::Error::Kind::Conflict)) {
      return ReconcileResult{true};  // the cache is behind: again once it caught up
    } else if (!written.error().is(kube::Error::Kind::NotFound)) {
      failures += " " + written.error().describe() + ";";
    }
  }
  for (std::size_t i = 0; i < existing.size(); ++i)
    if (!used[i]) remove_slice(*existing[i]);
  if (!failures.empty()) return std::unexpected("endpointslices " + key + ":" + failures);
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
