#include "operator/server/endpoints.hpp"

#include <charconv>

#include "operator/runtime/log.hpp"

namespace respool::server {

std::expected<BindAddress, std::string> parse_bind_address(const std::string& text) {
  BindAddress out;
  if (text == "0") {
    out.disabled = true;
    return out;
  }
  auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    return std::unexpected("bind address \"" + text + "\" must be host:port, :port or 0");
  }
  out.host = text.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  if (out.host.empty()) out.host = "0.0.0.0";
  const std::string port = text.substr(colon + 1);
  unsigned value = 0;
  auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || p != port.data() + port.size() || value > 65535) {
    return std::unexpected("bind address \"" + text + "\": \"" + port + "\" is not a port");
  }
  out.port = static_cast<std::uint16_t>(value);
  return out;
}

namespace {

http::Response text(int status, std::string body,
                    std::string content_type = "text/plain; charset=utf-8") {
  http::Response r;
  r.status = status;
  r.headers.set("Content-Type", std::move(content_type));
  r.headers.set("X-Content-Type-Options", "nosniff");
  r.body = std::move(body);
  return r;
}

// As controller-runtime's healthz handler: "ok", or one line per check ("[+]name ok",
// "[-]name failed: reason") when a check fails or ?verbose is given.
http::Response run_checks(const std::vector<Check>& checks, bool verbose) {
  bool healthy = true;
  std::string detail;
  for (const auto& c : checks) {
    std::string reason = c.run ? c.run() : std::string();
    if (reason.empty()) {
      detail += "[+]" + c.name + " ok\n";
    } else {
      healthy = false;
      detail += "[-]" + c.name + " failed: " + reason + "\n";
    }
  }
  if (healthy && !verbose) return text(200, "ok");
  detail += healthy ? "healthz check passed\n" : "healthz check failed\n";
  return text(healthy ? 200 : 500, detail);
}

}  // namespace

void Endpoints::handle(const http::ServerRequest& request, http::Responder& responder, bool metrics,
                       bool health) {
  const auto target = http::parse_target(request.target);
  if (request.method != "GET" && request.method != "HEAD") {
    responder.respond(text(405, "method not allowed\n"));
    return;
  }
  if (metrics && authorizer_) {
    if (auto refused = refuse(request, target.path)) {
      responder.respond(std::move(*refused));
      return;
    }
  }
  const bool verbose = target.param("verbose").has_value();
  if (metrics && target.path == "/metrics") {
    responder.respond(text(200, registry_->render(), "text/plain; version=0.0.4; charset=utf-8"));
  } else if (health && (target.path == "/healthz" || target.path == "/livez")) {
    responder.respond(run_checks(options_.liveness, verbose));
  } else if (health && target.path == "/readyz") {
    responder.respond(run_checks(options_.readiness, verbose));
  } else {
    responder.respond(text(404, "404 page not found\n"));
  }
}

std::optional<http::Response> Endpoints::refuse(const http::ServerRequest& request,
                                                std::string_view path) {
  const AuthDecision d = authorizer_->authorize(request.headers.get("Authorization").value_or(""),
                                                request.method, path);
  if (d.status == 200) return std::nullopt;
  if (d.status == 500) {
    runtime::log::error("metrics", "a metrics request could not be reviewed",
                        {{"error", d.error}, {"path", path}, {"remote", request.remote_address}});
  } else {
    runtime::log::debug(
        "metrics", "a metrics request refused",
        {{"code", d.status}, {"user", d.user}, {"path", path}, {"remote", request.remote_address}});
  }
  http::Response r = text(d.status, d.body);
  if (d.status == 401) r.headers.set("WWW-Authenticate", "Bearer");
  return r;
}

std::expected<void, std::string> Endpoints::start_metrics(const BindAddress& address, bool shared) {
  http::ServerOptions so;
  so.bind_address = address.host;
  so.port = address.port;
  const std::optional<SecureMetrics>& secure = options_.secure_metrics;
  if (secure) so.tls = secure->certificate;
  auto server =
      http::Server::start(so, [this, shared](const http::ServerRequest& r, http::Responder& out) {
        handle(r, out, true, shared);
      });
  if (!server) return std::unexpected("metrics server: " + server.error());
  metrics_server_ = std::move(*server);
  if (secure && secure->files) {
    http::Server* served = metrics_server_.get();
    certificate_watcher_ = std::make_unique<CertificateWatcher>(
        *secure->files, secure->certificate, secure->clock ? *secure->clock : runtime::real_clock(),
        secure->reload_period,
        [served](const http::ServerTls& tls) { return served->reload_tls(tls); });
  }
  return {};
}

std::expected<std::unique_ptr<Endpoints>, std::string> Endpoints::start(
    EndpointsOptions options, runtime::Registry& registry) {
  auto e = std::make_unique<Endpoints>(Key{});
  e->options_ = std::move(options);
  e->registry_ = &registry;
  auto metrics = parse_bind_address(e->options_.metrics_bind_address);
  if (!metrics) return std::unexpected("--metrics-bind-address: " + metrics.error());
  auto health = parse_bind_address(e->options_.health_probe_bind_address);
  if (!health) return std::unexpected("--health-probe-bind-address: " + health.error());
  const bool shared = !metrics->disabled && !health->disabled && metrics->port != 0 &&
                      metrics->host == health->host && metrics->port == health->port;
  const std::optional<SecureMetrics>& secure = e->options_.secure_metrics;
  if (secure && shared) {
    return std::unexpected(
        "--health-probe-bind-address must differ from --metrics-bind-address when metrics are "
        "secure: kubelet probes speak plain HTTP without a token");
  }
  if (secure && !metrics->disabled) {
    if (!secure->reviewer) return std::unexpected("secure metrics need an access reviewer");
    e->authorizer_ = std::make_unique<MetricsAuthorizer>(
        *secure->reviewer, secure->clock ? *secure->clock : runtime::real_clock(), secure->auth);
  }
  if (!metrics->disabled) {
    if (auto started = e->start_metrics(*metrics, shared); !started) {
      return std::unexpected(started.error());
    }
  }
  if (!health->disabled && !shared) {
    http::ServerOptions so;
    so.bind_address = health->host;
    so.port = health->port;
    Endpoints* self = e.get();
    auto server =
        http::Server::start(so, [self](const http::ServerRequest& r, http::Responder& out) {
          self->handle(r, out, false, true);
        });
    if (!server) return std::unexpected("health probe server: " + server.error());
    e->health_server_ = std::move(*server);
  }
  return e;
}

Endpoints::~Endpoints() {
  stop();
}

void Endpoints::stop() {
  certificate_watcher_.reset();  // it reloads the metrics server: gone first
  if (metrics_server_) metrics_server_->stop();
  if (health_server_) health_server_->stop();
}

std::uint16_t Endpoints::metrics_port() const {
  return metrics_server_ ? metrics_server_->port() : 0;
}

std::uint16_t Endpoints::health_port() const {
  if (health_server_) return health_server_->port();
  return metrics_server_ ? metrics_server_->port() : 0;
}

}  // namespace respool::server
