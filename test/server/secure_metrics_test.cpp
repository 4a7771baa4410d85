// The secure /metrics against the sandbox's TokenReview, SubjectAccessReview and RBAC (issue 32):
// the endpoint reviews with a ServiceAccount that holds only `create` on the two reviews, as the
// chart's; a scraper bound to the metrics-reader ClusterRole gets 200, an unbound one 403, no
// token and a forged one 401; a cached token costs the API server nothing, and a deleted binding
// refuses within --metrics-auth-cache-ttl; the probes stay plain HTTP; a rotated certificate in
// --metrics-cert-dir is served without a restart.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "operator/http/client.hpp"
#include "operator/http/pki.hpp"
#include "operator/kube/client.hpp"
#include "operator/runtime/metrics.hpp"
#include "operator/server/endpoints.hpp"
#include "operator/server/metrics_serving.hpp"
#include "sandbox/apiserver/api_server.hpp"

using namespace respool;
using namespace std::chrono_literals;
using kube::Json;

namespace {

const kube::Resource cluster_roles{"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole",
                                   false};
const kube::Resource cluster_role_bindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings",
                                           "ClusterRoleBinding", false};

// A cluster with RBAC: ServiceAccounts respool (the endpoint's reviews), prometheus (bound to the
// reader role) and stranger (bound to nothing), and a token for each.
struct Cluster {
  std::unique_ptr<sandbox::ApiServer> server;
  std::unique_ptr<kube::Client> admin;
  std::unique_ptr<kube::Client> respool;  // as the endpoint's ServiceAccount
  std::string prometheus_token;
  std::string stranger_token;

  Cluster() {
    auto started = sandbox::ApiServer::start({});
    REQUIRE(started);
    server = std::move(*started);
    auto client = kube::Client::create(server->cluster_config());
    REQUIRE(client);
    admin = std::move(*client);
    for (const char* ns : {"respool-system", "monitoring"}) {
      REQUIRE(admin->create(
          kube::resources::namespaces, "",
          {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}));
    }
    role("respool-metrics-auth", {{{"apiGroups", {"authentication.k8s.io"}},
                                   {"resources", {"tokenreviews"}},
                                   {"verbs", {"create"}}},
                                  {{"apiGroups", {"authorization.k8s.io"}},
                                   {"resources", {"subjectaccessreviews"}},
                                   {"verbs", {"create"}}}});
    role("respool-metrics-reader", {{{"nonResourceURLs", {"/metrics"}}, {"verbs", {"get"}}}});
    bind("respool-metrics-auth", "respool-system", "respool");
    bind("respool-metrics-reader", "monitoring", "prometheus");
    kube::ClusterConfig as_respool = server->cluster_config();
    as_respool.token = token("respool-system", "respool");
    auto reviewing = kube::Client::create(as_respool);
    REQUIRE(reviewing);
    respool = std::move(*reviewing);
    prometheus_token = token("monitoring", "prometheus");
    stranger_token = token("monitoring", "stranger");
  }

  void role(const std::string& name, const Json& rules) {
    REQUIRE(admin->create(cluster_roles, "",
                          {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                           {"kind", "ClusterRole"},
                           {"metadata", {{"name", name}}},
                           {"rules", rules}}));
  }
  void bind(const std::string& role_name, const std::string& ns, const std::string& sa) {
    REQUIRE(admin->create(
        cluster_role_bindings, "",
        {{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", "ClusterRoleBinding"},
         {"metadata", {{"name", role_name + "-" + sa}}},
         {"roleRef",
          {{"apiGroup", "rbac.authorization.k8s.io"},
           {"kind", "ClusterRole"},
           {"name", role_name}}},
         {"subjects", {{{"kind", "ServiceAccount"}, {"name", sa}, {"namespace", ns}}}}}));
  }
  // A ServiceAccount and a TokenRequest's token for it, as `kubectl create token` gets one.
  std::string token(const std::string& ns, const std::string& sa) {
    REQUIRE(admin->create(kube::resources::serviceaccounts, ns,
                          {{"apiVersion", "v1"},
                           {"kind", "ServiceAccount"},
                           {"metadata", {{"name", sa}, {"namespace", ns}}}}));
    auto issued = admin->request(
        "POST", kube::resources::serviceaccounts.item_path(ns, sa, "token"),
        R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}})",
        "application/json");
    REQUIRE(issued);
    REQUIRE(issued->status == 201);
    return Json::parse(issued->body)["status"]["token"].get<std::string>();
  }

  // Reviews the API server was asked for since the last reset.
  std::uint64_t reviews() {
    std::uint64_t total = 0;
    for (const auto& [key, count] : server->request_counts().snapshot()) {
      if (key.resource == "tokenreviews" || key.resource == "subjectaccessreviews") total += count;
    }
    return total;
  }
};

struct Answer {
  int status = 0;
  std::string body;
};

Answer get(const std::string& scheme, std::uint16_t port, const std::string& path,
           const std::string& token = "", const http::ClientTls& tls = {}) {
  http::ClientOptions options;
  options.endpoint = {scheme, "127.0.0.1", port, ""};
  options.tls = tls;
  if (tls.ca_pem.empty()) options.tls.insecure_skip_verify = true;
  http::Client client(options);
  http::Request request{"GET", path, {}, ""};
  if (!token.empty()) request.headers.set("Authorization", "Bearer " + token);
  auto r = client.send(request, 5000ms);
  if (!r) return {0, r.error().message};
  return {r->status, r->body};
}

std::unique_ptr<server::Endpoints> serve(const server::MetricsServingFlags& flags,
                                         kube::Client& client, runtime::Registry& registry,
                                         runtime::Duration reload_period = 10s) {
  server::EndpointsOptions options;
  options.metrics_bind_address = "127.0.0.1:0";
  options.health_probe_bind_address = "127.0.0.1:0";
  options.liveness.push_back({"ping", [] { return std::string(); }});
  auto secure = server::secure_metrics(flags, client);
  REQUIRE(secure);
  REQUIRE(*secure);
  (*secure)->reload_period = reload_period;
  options.secure_metrics = std::move(*secure);
  auto endpoints = server::Endpoints::start(std::move(options), registry);
  REQUIRE(endpoints);
  return std::move(*endpoints);
}

}  // namespace

TEST_CASE("secure /metrics: 200 for the reader, 403, 401; cached tokens cost nothing",
          "[server][secure-metrics]") {
  Cluster cluster;
  runtime::Registry registry;
  registry.gauge("respool_test_gauge", "A gauge the scrape must show").with({})->set(7);
  server::MetricsServingFlags flags;
  flags.secure = true;
  flags.auth_cache_ttl = 2s;
  auto endpoints = serve(flags, *cluster.respool, registry);
  const std::uint16_t port = endpoints->metrics_port();

  CHECK(get("http", port, "/metrics").status == 0);  // HTTPS only: plain HTTP gets no answer
  cluster.server->request_counts().reset();
  Answer allowed = get("https", port, "/metrics", cluster.prometheus_token);
  CHECK(allowed.status == 200);
  CHECK(allowed.body.find("respool_test_gauge 7") != std::string::npos);
  CHECK(cluster.reviews() == 2);  // one TokenReview, one SubjectAccessReview
  for (int i = 0; i < 10; ++i)
    CHECK(get("https", port, "/metrics", cluster.prometheus_token).status == 200);
  CHECK(cluster.reviews() == 2);  // cached: no API request per scrape

  Answer stranger = get("https", port, "/metrics", cluster.stranger_token);
  CHECK(stranger.status == 403);
  CHECK(stranger.body ==
        "Forbidden (user=system:serviceaccount:monitoring:stranger, verb=get, resource=, "
        "subresource=)\n");
  Answer none = get("https", port, "/metrics");
  CHECK(none.status == 401);
  CHECK(none.body == "Unauthorized\n");
  Answer forged = get("https", port, "/metrics", "eyJhbGciOiJSUzI1NiJ9.forged.signature");
  CHECK(forged.status == 401);
  CHECK(forged.body == "Unauthorized\n");

  // The probes: plain HTTP on their own port, without a token.
  CHECK(get("http", endpoints->health_port(), "/healthz").status == 200);

  SECTION("a deleted binding refuses within the cache's 2 s") {
    REQUIRE(get("https", port, "/metrics", cluster.prometheus_token).status == 200);
    REQUIRE(cluster.admin->remove(cluster_role_bindings, "", "respool-metrics-reader-prometheus"));
    const auto deleted = std::chrono::steady_clock::now();
    int status = 200;
    while (status == 200 && std::chrono::steady_clock::now() - deleted < 10s) {
      status = get("https", port, "/metrics", cluster.prometheus_token).status;
      if (status == 200) std::this_thread::sleep_for(100ms);
    }
    CHECK(status == 403);
    const auto took = std::chrono::steady_clock::now() - deleted;
    INFO("refused " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                    << " ms after the binding was deleted");
    CHECK(took <= 2s + 1s);  // the stated TTL, and one poll's and one review's time
  }
}

TEST_CASE("secure /metrics without the review permissions is 500, and says why",
          "[server][secure-metrics]") {
  Cluster cluster;
  runtime::Registry registry;
  server::MetricsServingFlags flags;
  flags.secure = true;
  // The stranger's own token: no create on tokenreviews.
  kube::ClusterConfig as_stranger = cluster.server->cluster_config();
  as_stranger.token = cluster.stranger_token;
  auto client = kube::Client::create(as_stranger);
  REQUIRE(client);
  auto endpoints = serve(flags, **client, registry);
  Answer refused = get("https", endpoints->metrics_port(), "/metrics", cluster.prometheus_token);
  CHECK(refused.status == 500);
  CHECK(refused.body == "Authentication failed\n");
}

TEST_CASE("secure /metrics serves --metrics-cert-dir and a rotated pair without a restart",
          "[server][secure-metrics]") {
  Cluster cluster;
  runtime::Registry registry;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("respool-metrics-cert-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write_pair = [&](const http::KeyPair& ca) {
    auto serving = http::make_server_cert(ca, "respool-metrics", {"127.0.0.1", "localhost"});
    REQUIRE(serving);
    // Written aside and renamed, as the kubelet swaps a mounted Secret's files.
    std::ofstream(dir / "tls.crt.new") << serving->cert_pem;
    std::ofstream(dir / "tls.key.new") << serving->key_pem;
    std::filesystem::rename(dir / "tls.key.new", dir / "tls.key");
    std::filesystem::rename(dir / "tls.crt.new", dir / "tls.crt");
  };
  auto first_ca = http::make_ca("first");
  auto second_ca = http::make_ca("second");
  REQUIRE(first_ca);
  REQUIRE(second_ca);
  write_pair(*first_ca);

  server::MetricsServingFlags flags;
  flags.secure = true;
  flags.cert_dir = dir.string();
  auto endpoints = serve(flags, *cluster.respool, registry, 100ms);
  const std::uint16_t port = endpoints->metrics_port();
  http::ClientTls first{first_ca->cert_pem, false, "", "", ""};
  http::ClientTls second{second_ca->cert_pem, false, "", "", ""};
  CHECK(get("https", port, "/metrics", cluster.prometheus_token, first).status == 200);
  CHECK(get("https", port, "/metrics", cluster.prometheus_token, second).status == 0);

  write_pair(*second_ca);
  int status = 0;
  for (int i = 0; i < 50 && status != 200; ++i) {
    std::this_thread::sleep_for(100ms);
    status = get("https", port, "/metrics", cluster.prometheus_token, second).status;
  }
  CHECK(status == 200);  // the new certificate, verified by its own CA
  CHECK(get("https", port, "/metrics", cluster.prometheus_token, first).status == 0);
  endpoints.reset();
  std::filesystem::remove_all(dir);
}

TEST_CASE("the metrics flags: defaults by mode, and what they refuse", "[server][secure-metrics]") {
  const server::MetricsDefaults defaults{":8080", ":8443"};
  server::MetricsServingFlags flags;
  CHECK(server::metrics_bind_address(flags, defaults) == ":8080");
  flags.secure = true;
  CHECK(server::metrics_bind_address(flags, defaults) == ":8443");
  flags.bind_address = "127.0.0.1:9000";
  CHECK(server::metrics_bind_address(flags, defaults) == "127.0.0.1:9000");
  CHECK(server::check_metrics_serving_flags(flags));
  flags.secure = false;
  flags.cert_dir = "/etc/certs";
  CHECK(server::check_metrics_serving_flags(flags).error() ==
        "--metrics-cert-dir needs --metrics-secure: plain HTTP has no certificate");
  flags.cert_dir.clear();
  flags.auth_cache_ttl = -1s;
  CHECK(server::check_metrics_serving_flags(flags).error() ==
        "--metrics-auth-cache-ttl must not be negative");

  // Secure metrics and the probes on one address: refused, naming both flags.
  runtime::Registry registry;
  server::EndpointsOptions options;
  options.metrics_bind_address = "127.0.0.1:18443";
  options.health_probe_bind_address = "127.0.0.1:18443";
  options.secure_metrics = server::SecureMetrics{};
  auto refused = server::Endpoints::start(options, registry);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find(
            "--health-probe-bind-address must differ from --metrics-bind-address") == 0);
}
