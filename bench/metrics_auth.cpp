// The secure /metrics' cost (issue 32): SCRAPES GETs of a registry of SERIES series, over one
// kept-alive connection as Prometheus scrapes, three ways against the sandbox with RBAC: plain
// HTTP (--metrics-secure=false), HTTPS with a cached token (the reviews asked once), and HTTPS
// with every token reviewed (--metrics-auth-cache-ttl=0: a TokenReview and a SubjectAccessReview
// per scrape). Prints each way's median and 99th-percentile scrape time, the added latency of
// the two secure ways over plain, and the API requests per scrape the sandbox counted.
// Usage: bench_metrics_auth [SCRAPES [SERIES]]   (default 500 2000)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "operator/http/client.hpp"
#include "operator/kube/client.hpp"
#include "operator/runtime/metrics.hpp"
#include "operator/server/endpoints.hpp"
#include "operator/server/metrics_serving.hpp"
#include "sandbox/apiserver/api_server.hpp"

namespace {

using namespace respool;
using namespace std::chrono_literals;
using bench::die;
using bench::must;
using bench::phase;
using kube::Json;

const kube::Resource cluster_roles{"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole",
                                   false};
const kube::Resource cluster_role_bindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings",
                                           "ClusterRoleBinding", false};

void bind(kube::Client& admin, const std::string& role, const Json& rules, const std::string& sa) {
  must(admin.create(cluster_roles, "",
                    {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                     {"kind", "ClusterRole"},
                     {"metadata", {{"name", role}}},
                     {"rules", rules}}),
       "create the ClusterRole");
  must(admin.create(
           cluster_role_bindings, "",
           {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", "ClusterRoleBinding"},
            {"metadata", {{"name", role}}},
            {"roleRef",
             {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
            {"subjects", {{{"kind", "ServiceAccount"}, {"name", sa}, {"namespace", "default"}}}}}),
       "create the ClusterRoleBinding");
}

// A ServiceAccount of "default" and a TokenRequest's token for it.
std::string token(kube::Client& admin, const std::string& sa) {
  must(admin.create(
           kube::resources::serviceaccounts, "default",
           {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", sa}}}}),
       "create the ServiceAccount");
  auto issued = must(
      admin.request("POST", kube::resources::serviceaccounts.item_path("default", sa, "token"),
                    R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})",
                    "application/json"),
      "request a token");
  if (issued.status != 201) die("TokenRequest answered " + std::to_string(issued.status));
  return Json::parse(issued.body)["status"]["token"].get<std::string>();
}

struct Figures {
  double median_ms = 0;
  double p99_ms = 0;
  double requests_per_scrape = 0;
  std::size_t bytes = 0;
};

Figures scrape(sandbox::ApiServer& server, std::uint16_t port, bool https,
               const std::string& bearer, int scrapes) {
  http::ClientOptions options;
  options.endpoint = {https ? "https" : "http", "127.0.0.1", port, ""};
  options.tls.insecure_skip_verify = true;
  http::Client client(options);
  http::Request request{"GET", "/metrics", {}, ""};
  if (!bearer.empty()) request.headers.set("Authorization", "Bearer " + bearer);
  Figures f;
  // One scrape first, outside the figures: the connection's handshake, and the cached way's
  // reviews (what a scraper pays once a cache TTL).
  auto first = client.send(request, 10s);
  if (!first || first->status != 200) die("the first scrape failed");
  server.request_counts().reset();
  std::vector<double> ms;
  for (int i = 0; i < scrapes; ++i) {
    const auto began = bench::Steady::now();
    auto r = client.send(request, 10s);
    ms.push_back(std::chrono::duration<double, std::milli>(bench::Steady::now() - began).count());
    if (!r || r->status != 200) die("a scrape failed");
    f.bytes = r->body.size();
  }
  std::uint64_t requests = 0;
  for (const auto& [key, count] : server.request_counts().snapshot())
    requests += count;
  f.median_ms = bench::median(ms);
  std::sort(ms.begin(), ms.end());
  f.p99_ms = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  f.requests_per_scrape = static_cast<double>(requests) / scrapes;
  return f;
}

std::unique_ptr<server::Endpoints> serve(runtime::Registry& registry, kube::Client& client,
                                         bool secure, std::chrono::nanoseconds ttl) {
  server::MetricsServingFlags flags;
  flags.secure = secure;
  flags.auth_cache_ttl = ttl;
  server::EndpointsOptions options;
  options.metrics_bind_address = "127.0.0.1:0";
  options.health_probe_bind_address = "0";
  auto made = server::secure_metrics(flags, client);
  if (!made) die(made.error());
  options.secure_metrics = std::move(*made);
  auto endpoints = server::Endpoints::start(std::move(options), registry);
  if (!endpoints) die(endpoints.error());
  return std::move(*endpoints);
}

}  // namespace

int main(int argc, char** argv) {
  const int scrapes = argc > 1 ? std::atoi(argv[1]) : 500;
  const int series = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (scrapes < 1 || series < 1) die("usage: bench_metrics_auth [SCRAPES [SERIES]]");
  bench::begin("bench_metrics_auth", 600s);

  phase("the sandbox, its ServiceAccounts and their bindings");
  auto server = std::move(*sandbox::ApiServer::start({}));
  auto admin = must(kube::Client::create(server->cluster_config()), "the admin client");
  bind(*admin, "metrics-auth",
       {{{"apiGroups", {"authentication.k8s.io"}},
         {"resources", {"tokenreviews"}},
         {"verbs", {"create"}}},
        {{"apiGroups", {"authorization.k8s.io"}},
         {"resources", {"subjectaccessreviews"}},
         {"verbs", {"create"}}}},
       "respool");
  bind(*admin, "metrics-reader", {{{"nonResourceURLs", {"/metrics"}}, {"verbs", {"get"}}}},
       "prometheus");
  kube::ClusterConfig as_respool = server->cluster_config();
  as_respool.token = token(*admin, "respool");
  auto respool = must(kube::Client::create(as_respool), "the endpoint's client");
  const std::string reader = token(*admin, "prometheus");

  runtime::Registry registry;
  auto& family = registry.gauge("bench_series", "A series of the scraped registry", {"index"});
  for (int i = 0; i < series; ++i)
    family.with({std::to_string(i)})->set(i);

  phase("plain HTTP");
  auto plain = serve(registry, *respool, false, 0s);
  const Figures p = scrape(*server, plain->metrics_port(), false, "", scrapes);
  phase("HTTPS, the token cached");
  auto cached = serve(registry, *respool, true, 1min);
  const Figures c = scrape(*server, cached->metrics_port(), true, reader, scrapes);
  phase("HTTPS, every token reviewed");
  auto uncached = serve(registry, *respool, true, 0s);
  const Figures u = scrape(*server, uncached->metrics_port(), true, reader, scrapes);

  std::printf("%d scrapes of %d series (%zu bytes) each way, one kept-alive connection\n", scrapes,
              series, p.bytes);
  std::printf("%-28s %10s %10s %12s %18s\n", "", "median ms", "p99 ms", "added ms",
              "API req/scrape");
  auto row = [&](const char* name, const Figures& f) {
    std::printf("%-28s %10.3f %10.3f %12.3f %18.2f\n", name, f.median_ms, f.p99_ms,
                f.median_ms - p.median_ms, f.requests_per_scrape);
  };
  row("plain HTTP", p);
  row("HTTPS, token cached", c);
  row("HTTPS, token reviewed", u);
  if (c.requests_per_scrape != 0) die("a cached token cost API requests");
  if (u.requests_per_scrape < 2) die("an uncached token was not reviewed per scrape");
  uncached.reset();
  cached.reset();
  plain.reset();
  server->stop();
  bench::completed();
  return 0;
}
