#pragma once
// kube-controller-manager's root-ca-cert-publisher: every namespace holds a ConfigMap
// "kube-root-ca.crt" with the API server's CA (ca.crt) and the real description annotation, put
// back when it is changed or deleted. Pods reach it through their projected
// kube-api-access volume. (A 1.32 cluster makes no ServiceAccount token Secrets by itself:
// tokens come from the TokenRequest API, which the API server serves.)

#include <expected>
#include <string>

#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

inline constexpr const char* kRootCAConfigMap = "kube-root-ca.crt";

class RootCAPublisher : public SimController {
 public:
  RootCAPublisher(Cluster& cluster, ObjectInformer& namespaces, ObjectInformer& configmaps,
                  std::string ca_pem);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& ns) override;

  ObjectInformer& namespaces_;
  ObjectInformer& configmaps_;  // those named kube-root-ca.crt
  std::string ca_pem_;
};

}  // namespace respool::sandbox::sim
