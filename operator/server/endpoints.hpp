#pragma once
// The operator's and the node agent's HTTP endpoints, as controller-runtime serves them:
// /metrics (Prometheus text format) on the metrics address, /healthz and /readyz on the
// health-probe address. An address "0" disables that server; both may share one address unless
// metrics are secure: then /metrics is HTTPS and every request passes MetricsAuthorizer
// (TokenReview, SubjectAccessReview), while the probes stay plain HTTP on their own port, as
// kubelet probes need.

#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "operator/http/server.hpp"
#include "operator/runtime/metrics.hpp"
#include "operator/server/metrics_auth.hpp"
#include "operator/server/serving_certificate.hpp"

namespace respool::server {

// A named readiness or liveness check: empty string = healthy, else the reason.
struct Check {
  std::string name;
  std::function<std::string()> run;
};

// /metrics over HTTPS, for the users the API server allows.
struct SecureMetrics {
  http::ServerTls certificate;            // served from the start
  std::optional<CertificateFiles> files;  // where it came from: re-read every reload_period
  runtime::Duration reload_period = std::chrono::seconds(10);
  std::shared_ptr<AccessReviewer> reviewer;
  runtime::Clock* clock = nullptr;  // the caches' and the watcher's (default: real time)
  MetricsAuthOptions auth;
};

struct EndpointsOptions {
  std::string metrics_bind_address = ":8080";
  std::optional<SecureMetrics> secure_metrics;  // none: plain HTTP for anyone
  std::string health_probe_bind_address = ":8081";
  std::vector<Check> readiness;  // /readyz
  std::vector<Check> liveness;   // /healthz
};

// Splits "host:port", ":port" (all interfaces) or "0" (disabled).
struct BindAddress {
  bool disabled = false;
  std::string host;
  std::uint16_t port = 0;
};
std::expected<BindAddress, std::string> parse_bind_address(const std::string& text);

class Endpoints {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };

 public:
  explicit Endpoints(Key) {}
  static std::expected<std::unique_ptr<Endpoints>, std::string> start(EndpointsOptions options,
                                                                      runtime::Registry& registry);
  ~Endpoints();
  // Ports actually bound (0 when disabled), for tests that bind port 0.
  std::uint16_t metrics_port() const;
  std::uint16_t health_port() const;
  void stop();

 private:
  void handle(const http::ServerRequest& request, http::Responder& responder, bool metrics,
              bool health);
  // The authorizer's answer to a request of the secure server, or nullopt when it may go on.
  std::optional<http::Response> refuse(const http::ServerRequest& request, std::string_view path);
  std::expected<void, std::string> start_metrics(const BindAddress& address, bool shared);

  EndpointsOptions options_;
  std::unique_ptr<MetricsAuthorizer> authorizer_;
  std::unique_ptr<CertificateWatcher> certificate_watcher_;
  runtime::Registry* registry_ = nullptr;
  std::unique_ptr<http::Server> metrics_server_;
  std::unique_ptr<http::Server> health_server_;
};

}  // namespace respool::server
