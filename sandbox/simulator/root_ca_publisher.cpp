#include "sandbox/simulator/root_ca_publisher.hpp"

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

namespace {

constexpr const char* kDescription =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters.";

}  // namespace

RootCAPublisher::RootCAPublisher(Cluster& cluster, ObjectInformer& namespaces,
                                 ObjectInformer& configmaps, std::string ca_pem)
    : SimController(cluster, "sandbox-root-ca-cert-publisher", 1),
      namespaces_(namespaces),
      configmaps_(configmaps),
      ca_pem_(std::move(ca_pem)) {
  controller_.watch<kube::Unstructured>(namespaces_);
  controller_.watch<kube::Unstructured>(configmaps_, [](const kube::Unstructured& cm) {
    return std::vector<std::string>{cm.meta.namespace_.str()};
  });
}

std::expected<ReconcileResult, std::string> RootCAPublisher::reconcile(const std::string& ns) {
  ObjectPtr namespace_ = namespaces_.store().get(ns);
  if (!namespace_ || namespace_->meta.deletion_timestamp || ca_pem_.empty())
    return ReconcileResult::done();
  ObjectPtr current = configmaps_.store().get(ns + "/" + kRootCAConfigMap);
  const Json data = {{"ca.crt", ca_pem_}};
  if (current && at_path(current->object, {"data"}) == data &&
      annotation(current->object, "kubernetes.io/description").value_or("") != "")
    return ReconcileResult::done();
  Json cm = current ? current->object
                    : Json{{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", {{"name", kRootCAConfigMap}, {"namespace", ns}}}};
  cm["data"] = data;
  cm["metadata"]["annotations"]["kubernetes.io/description"] = kDescription;
  auto written = current ? cluster_.client.update(kube::resources::configmaps, ns, cm)
                         : cluster_.client.create(kube::resources::configmaps, ns, cm);
  if (written) return ReconcileResult::done();
  const auto& e = written.error();
  if (e.is(kube::Error::Kind::AlreadyExists) || e.is(kube::Error::Kind::Conflict))
    return ReconcileResult{true};  // our cache is behind
  if (e.is(kube::Error::Kind::NotFound) || e.is(kube::Error::Kind::Forbidden))
    return ReconcileResult::done();  // the namespace went or is going
  return std::unexpected("configmap " + ns + "/" + kRootCAConfigMap + ": " + e.describe());
}

}  // namespace respool::sandbox::sim
