#pragma once
// kube-controller-manager's tokens controller for the Secrets a user makes by hand: a Secret of
// type kubernetes.io/service-account-token annotated kubernetes.io/service-account.name gets
// data.token, data.ca.crt and data.namespace and the service-account.uid annotation; it is
// deleted once its ServiceAccount is gone (or is another one of that name). A 1.32 cluster
// makes no such Secret by itself.
// The token comes from the TokenRequest API (ten years, bound to the ServiceAccount): it
// authenticates as the ServiceAccount, as the real legacy token does, but is shaped as a bound
// token (the sandbox's signing key is the API server's own).

#include <expected>
#include <string>

#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

inline constexpr const char* kServiceAccountTokenType = "kubernetes.io/service-account-token";

class TokenSecrets : public SimController {
 public:
  // `secrets`: those of type kubernetes.io/service-account-token.
  TokenSecrets(Cluster& cluster, ObjectInformer& secrets, ObjectInformer& service_accounts,
               std::string ca_pem);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  std::expected<std::string, std::string> request_token(const std::string& ns,
                                                        const std::string& service_account);

  ObjectInformer& secrets_;
  ObjectInformer& service_accounts_;
  std::string ca_pem_;
};

}  // namespace respool::sandbox::sim
