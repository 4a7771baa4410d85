#pragma once
// The operator's HTTP endpoints, as controller-runtime serves them: /metrics (Prometheus text
// format) on the metrics address, /healthz and /readyz on the health-probe address. An address
// "0" disables that server; both may share one address.

#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "operator/http/server.hpp"
#include "operator/runtime/metrics.hpp"

namespace respool::server {

// A named readiness or liveness check: empty string = healthy, else the reason.
struct Check {
  std::string name;
  std::function<std::string()> run;
};

struct EndpointsOptions {
  std::string metrics_bind_address = ":8080";
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

  EndpointsOptions options_;
  runtime::Registry* registry_ = nullptr;
  std::unique_ptr<http::Server> metrics_server_;
  std::unique_ptr<http::Server> health_server_;
};

}  // namespace respool::server
