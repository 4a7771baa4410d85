// The `kubernetes` Service every cluster has in namespace default, as kube-apiserver's
// kubernetesservice controller makes it: ClusterIP 10.96.0.1 (the first address of the
// sandbox's service range), port https 443 to the server's port; its Endpoints (labelled
// skip-mirror) and EndpointSlice `kubernetes` (labelled with the service name, no managed-by)
// list the server's address, as the apiserver's endpoint reconciler writes them. Made at start
// and put back when deleted (a real server does so within ten seconds, this one at once).

#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

namespace {

constexpr const char* kServiceName = "kubernetes";
constexpr const char* kServiceNamespace = "default";

Json kubernetes_service(int port) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       {{"name", kServiceName},
        {"namespace", kServiceNamespace},
        {"labels", {{"component", "apiserver"}, {"provider", "kubernetes"}}}}},
      {"spec",
       {{"type", "ClusterIP"},
        {"clusterIP", "10.96.0.1"},
        {"sessionAffinity", "None"},
        {"ports",
         Json::array(
             {{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}, {"targetPort", port}}})}}}};
}

Json kubernetes_endpoints(const std::string& ip, int port) {
  return {
      {"apiVersion", "v1"},
      {"kind", "Endpoints"},
      {"metadata",
       {{"name", kServiceName},
        {"namespace", kServiceNamespace},
        {"labels", {{"endpointslice.kubernetes.io/skip-mirror", "true"}}}}},
      {"subsets",
       Json::array({{{"addresses", Json::array({{{"ip", ip}}})},
                     {"ports",
                      Json::array({{{"name", "https"}, {"port", port}, {"protocol", "TCP"}}})}}})}};
}

Json kubernetes_endpoint_slice(const std::string& ip, int port) {
  return {{"apiVersion", "discovery.k8s.io/v1"},
          {"kind", "EndpointSlice"},
          {"metadata",
           {{"name", kServiceName},
            {"namespace", kServiceNamespace},
            {"labels", {{"kubernetes.io/service-name", kServiceName}}}}},
          {"addressType", "IPv4"},
          {"endpoints",
           Json::array({{{"addresses", Json::array({ip})}, {"conditions", {{"ready", true}}}}})},
          {"ports", Json::array({{{"name", "https"}, {"port", port}, {"protocol", "TCP"}}})}};
}

}  // namespace

void Engine::publish_kubernetes_service(const std::string& ip, int port) {
  // A server listening on every address is reached, in the sandbox, on the loopback one.
  const std::string address = ip == "0.0.0.0" || ip.empty() ? "127.0.0.1" : ip;
  std::unique_lock lock(store_.mutex());
  kubernetes_address_.emplace(address, port);
  restore_kubernetes_service_locked();
}

void Engine::restore_kubernetes_service_locked() {
  if (!kubernetes_address_) return;
  const auto& [address, port] = *kubernetes_address_;
  const std::pair<TypePtr, Json> objects[] = {
      {registry_.find("", "v1", "services"), kubernetes_service(port)},
      {registry_.find("", "v1", "endpoints"), kubernetes_endpoints(address, port)},
      {registry_.find("discovery.k8s.io", "v1", "endpointslices"),
       kubernetes_endpoint_slice(address, port)}};
  for (const auto& [type, object] : objects) {
    if (!type || store_.get(type->storage, Store::key(kServiceNamespace, kServiceName))) continue;
    (void)create_locked(*type, kServiceNamespace, object, WriteOptions{});
  }
}

}  // namespace respool::sandbox
