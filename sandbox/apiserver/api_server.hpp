#pragma once
// The sandbox's Kubernetes API server: the REST API of kube-apiserver v1.32 for the resources
// respool uses, over HTTPS (or HTTP by request) on loopback, in process or standalone.

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include "operator/http/pki.hpp"
#include "operator/kube/config.hpp"
#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/handlers/faults.hpp"
#include "sandbox/apiserver/handlers/request_counts.hpp"

namespace respool::sandbox {

struct ApiServerOptions {
  bool tls = true;  // false: plain HTTP (--insecure-http)
  std::string bind_address = "127.0.0.1";
  std::uint16_t port = 0;              // 0 picks a free port
  std::filesystem::path state_dir;     // kubeconfig and certificates go here; "" = a new temp dir
  std::string token;                   // "" = a random token
  runtime::Clock* clock = nullptr;     // nullptr = the real clock
  std::size_t watch_history = 10'000;  // events kept for watches that resume from the past
  std::chrono::seconds default_watch_timeout{1800};  // when the client gives no timeoutSeconds
  std::size_t max_body_bytes = 3 * 1024 * 1024;
  // RBAC (the default) or off: every authenticated request allowed (--authorization-mode
  // AlwaysAllow). The sandbox's own token is in system:masters either way.
  bool authorization = true;
};

class ApiServer {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };
  struct Impl;

 public:
  ApiServer(Key, std::unique_ptr<Impl> impl);
  static std::expected<std::unique_ptr<ApiServer>, std::string> start(ApiServerOptions options);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  std::string url() const;
  // The kubeconfig written at start (CA data, server URL, token): kubectl and the operator use it.
  const std::filesystem::path& kubeconfig_path() const;
  const std::string& token() const;
  // The same as the kubeconfig says, ready for kube::Client::create.
  kube::ClusterConfig cluster_config() const;
  // PEM of the CA that signed the serving certificate and signs client certificates.
  const std::string& ca_cert_pem() const;
  // Issues a client certificate (CN user, O groups) the server accepts.
  std::expected<http::KeyPair, std::string> issue_client_cert(
      const std::string& user, const std::vector<std::string>& groups);
  FaultInjector& faults();
  // Requests served so far, by client, verb and resource.
  RequestCounts& request_counts();
  void stop();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace respool::sandbox
