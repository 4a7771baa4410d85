#include "sandbox/apiserver/api_server.hpp"

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "operator/http/server.hpp"
#include "sandbox/apiserver/auth/kubeconfig.hpp"
#include "sandbox/apiserver/handlers/dispatcher.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/apiserver/util.hpp"

namespace respool::sandbox {

struct ApiServer::Impl {
  ApiServerOptions options;
  runtime::Clock* clock = nullptr;
  http::KeyPair ca;
  std::string token;
  std::filesystem::path state_dir;
  bool owns_state_dir = false;
  std::filesystem::path kubeconfig;
  std::string url;
  FaultInjector faults;
  RequestCounts counts;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<http::Server> server;
  std::thread housekeeper;
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  bool stopped = false;

  // Reaps pods whose grace period ended and wakes watches so they notice gone clients. Polls
  // real time briefly, so that manual and scaled clocks are followed too.
  void housekeep() {
    std::unique_lock lock(mu);
    while (!stopping) {
      lock.unlock();
      engine->reap_expired();
      {
        std::lock_guard store_lock(engine->store().mutex());
        engine->store().changed().notify_all();
      }
      lock.lock();
      cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping; });
    }
  }
};

namespace {

std::expected<std::filesystem::path, std::string> make_temp_dir() {
  std::string templ = (std::filesystem::temp_directory_path() / "respool-sandbox-XXXXXX").string();
  if (!::mkdtemp(templ.data())) return std::unexpected("cannot create a temporary state directory");
  return std::filesystem::path(templ);
}

}  // namespace

ApiServer::ApiServer(Key, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ApiServer::~ApiServer() {
  stop();
}

std::expected<std::unique_ptr<ApiServer>, std::string> ApiServer::start(ApiServerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->clock = options.clock ? options.clock : &runtime::real_clock();
  impl->token = options.token.empty() ? new_uid() + new_uid().substr(0, 8) : options.token;
  if (options.state_dir.empty()) {
    auto dir = make_temp_dir();
    if (!dir) return std::unexpected(dir.error());
    impl->state_dir = *dir;
    impl->owns_state_dir = true;
  } else {
    impl->state_dir = options.state_dir;
    std::error_code ec;
    std::filesystem::create_directories(impl->state_dir, ec);
    if (ec) {
      return std::unexpected("cannot create state directory " + impl->state_dir.string() + ": " +
                             ec.message());
    }
  }
  impl->engine = std::make_unique<Engine>(*impl->clock, options.watch_history);
  impl->engine->bootstrap();

  http::ServerOptions server_options;
  server_options.bind_address = options.bind_address;
  server_options.port = options.port;
  server_options.max_body_bytes = options.max_body_bytes;
  if (options.tls) {
    auto ca = http::make_ca("respool-sandbox-ca", 3650);
    if (!ca) return std::unexpected("CA: " + ca.error());
    impl->ca = *ca;
    auto serving = http::make_server_cert(*ca, "respool-sandbox",
                                          {"127.0.0.1", "localhost", options.bind_address}, 3650);
    if (!serving) return std::unexpected("serving certificate: " + serving.error());
    server_options.tls = http::ServerTls{serving->cert_pem, serving->key_pem, ca->cert_pem};
  }
  DispatcherOptions dopts;
  dopts.token = impl->token;
  dopts.authorization = options.authorization;
  dopts.max_body_bytes = options.max_body_bytes;
  dopts.default_watch_timeout = options.default_watch_timeout;
  impl->dispatcher = std::make_unique<Dispatcher>(*impl->engine, impl->faults, impl->counts, dopts);
  Dispatcher* dispatcher = impl->dispatcher.get();
  auto server = http::Server::start(
      server_options,
      [dispatcher](const http::ServerRequest& r, http::Responder& w) { dispatcher->handle(r, w); });
  if (!server) return std::unexpected(server.error());
  impl->server = std::move(*server);
  impl->url = impl->server->url();
  impl->dispatcher->set_server_address(options.bind_address + ":" +
                                       std::to_string(impl->server->port()));
  impl->engine->publish_kubernetes_service(options.bind_address, impl->server->port());

  impl->kubeconfig = impl->state_dir / "kubeconfig";
  if (options.tls) {
    std::ofstream ca_file(impl->state_dir / "ca.crt", std::ios::trunc);
    ca_file << impl->ca.cert_pem;
  }
  auto written = write_kubeconfig(impl->kubeconfig,
                                  {impl->url, options.tls ? impl->ca.cert_pem : "", impl->token});
  if (!written) {
    impl->server->stop();
    return std::unexpected(written.error());
  }
  Impl* raw = impl.get();
  impl->housekeeper = std::thread([raw] { raw->housekeep(); });
  return std::make_unique<ApiServer>(Key{}, std::move(impl));
}

std::string ApiServer::url() const {
  return impl_->url;
}

const std::filesystem::path& ApiServer::kubeconfig_path() const {
  return impl_->kubeconfig;
}

const std::string& ApiServer::token() const {
  return impl_->token;
}

kube::ClusterConfig ApiServer::cluster_config() const {
  kube::ClusterConfig c;
  c.server = impl_->url;
  c.tls.ca_pem = impl_->ca.cert_pem;
  c.token = impl_->token;
  c.context = "sandbox";
  return c;
}

const std::string& ApiServer::ca_cert_pem() const {
  return impl_->ca.cert_pem;
}

std::expected<http::KeyPair, std::string> ApiServer::issue_client_cert(
    const std::string& user, const std::vector<std::string>& groups) {
  if (impl_->ca.cert_pem.empty()) return std::unexpected("the server runs without TLS");
  return http::make_client_cert(impl_->ca, user, groups, 365);
}

FaultInjector& ApiServer::faults() {
  return impl_->faults;
}

RequestCounts& ApiServer::request_counts() {
  return impl_->counts;
}

void ApiServer::stop() {
  if (!impl_) return;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  impl_->dispatcher->stop();
  impl_->server->stop();
  if (impl_->housekeeper.joinable()) impl_->housekeeper.join();
  if (impl_->owns_state_dir) {
    std::error_code ec;
    std::filesystem::remove_all(impl_->state_dir, ec);
  }
}

}  // namespace respool::sandbox
