// The operator's endpoints over HTTP after a manager has done real work against the sandbox:
// /metrics carries controller-runtime's names with values that follow what happened, /healthz
// answers, /readyz turns ready once the caches synced and leadership is known.
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "operator/http/client.hpp"
#include "operator/runtime/manager.hpp"
#include "operator/server/endpoints.hpp"
#include "sandbox/apiserver/api_server.hpp"

using namespace respool;
using namespace std::chrono_literals;

namespace {

std::string get(std::uint16_t port, const std::string& path, int* status = nullptr) {
  http::ClientOptions options;
  options.endpoint = {"http", "127.0.0.1", port, ""};
  http::Client client(options);
  auto r = client.send({"GET", path, {}, ""}, 5000ms);
  REQUIRE(r);
  if (status) *status = r->status;
  return r->body;
}

// Sample lines "name{labels} value" by their full series name.
std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// The sum over every series of `name` whose labels contain all of `parts`.
double sum(const std::map<std::string, double>& s, const std::string& name,
           std::initializer_list<std::string> parts = {}) {
  double total = 0;
  for (const auto& [series, value] : s) {
    if (series.rfind(name, 0) != 0) continue;
    const char next = series.size() > name.size() ? series[name.size()] : '\0';
    if (next != '{' && next != '\0') continue;
    bool all = true;
    for (const auto& p : parts)
      all = all && series.find(p) != std::string::npos;
    if (all) total += value;
  }
  return total;
}

// Whether some series of `name` has all of `parts` in its labels.
bool has(const std::map<std::string, double>& s, const std::string& name,
         std::initializer_list<std::string> parts) {
  for (const auto& [series, value] : s) {
    if (series.rfind(name + "{", 0) != 0) continue;
    bool all = true;
    for (const auto& p : parts)
      all = all && series.find(p) != std::string::npos;
    if (all) return true;
  }
  return false;
}

bool eventually(const std::function<bool()>& f, std::chrono::milliseconds limit = 20s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return f();
}

}  // namespace

TEST_CASE("/metrics, /healthz and /readyz after real reconciles", "[server][metrics]") {
  auto server = sandbox::ApiServer::start({});
  REQUIRE(server);
  runtime::ManagerOptions mo;
  mo.cluster = (*server)->cluster_config();
  mo.identity = "metrics-test";
  mo.leader_elect = true;
  mo.leader_election_namespace = "default";
  mo.lease_duration = 4s;
  mo.renew_deadline = 3s;
  mo.retry_period = 200ms;
  auto manager = runtime::Manager::create(mo);
  REQUIRE(manager);
  runtime::Manager& m = **manager;

  runtime::InformerOptions io;
  io.resource = kube::resources::configmaps;
  io.ns = "default";
  auto& informer = m.add_informer<kube::Unstructured>(io);
  std::atomic<int> reconciles{0};
  std::set<std::string> failed_once;
  std::mutex mu;
  runtime::ControllerOptions co;
  co.name = "configmaps";
  co.workers = 2;
  auto& controller = m.add_controller(
      [&](const std::string& key) -> std::expected<runtime::ReconcileResult, std::string> {
        ++reconciles;
        std::lock_guard lock(mu);
        // Keys named bad-* fail once: the error counters and retries move.
        if (key.find("/bad-") != std::string::npos && failed_once.insert(key).second) {
          return std::unexpected("failing " + key + " once");
        }
        return runtime::ReconcileResult::done();
      },
      std::move(co));
  controller.watch(informer);

  server::EndpointsOptions eo;
  eo.metrics_bind_address = "127.0.0.1:0";
  eo.health_probe_bind_address = "127.0.0.1:0";
  eo.liveness.push_back({"ping", [] { return std::string(); }});
  eo.readiness.push_back(
      {"informers", [&m] { return m.caches_synced() ? std::string() : "caches not synced"; }});
  eo.readiness.push_back({"leader-election", [&m] {
                            return m.leadership_known() ? std::string() : "leadership unknown";
                          }});
  auto endpoints = server::Endpoints::start(eo, m.metrics());
  REQUIRE(endpoints);
  const auto metrics_port = (*endpoints)->metrics_port();
  const auto health_port = (*endpoints)->health_port();

  int status = 0;
  get(health_port, "/readyz", &status);
  CHECK(status == 500);  // nothing synced, no leader yet

  std::thread runner([&] { CHECK(m.run() == 0); });
  auto& client = m.client();
  for (const char* name : {"a-1", "a-2", "a-3", "bad-1", "bad-2"}) {
    REQUIRE(client.create(kube::resources::configmaps, "default",
                          {{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", {{"name", name}}},
                           {"data", {{"k", "v"}}}}));
  }
  REQUIRE(eventually([&] { return reconciles.load() >= 7; }));  // 5 keys + 2 retries

  get(health_port, "/healthz", &status);
  CHECK(status == 200);
  REQUIRE(eventually([&] {
    get(health_port, "/readyz", &status);
    return status == 200;
  }));

  const auto s = samples(get(metrics_port, "/metrics"));
  const std::string c = "controller=\"configmaps\"";
  CHECK(sum(s, "controller_runtime_reconcile_total", {c, "result=\"success\""}) >= 5);
  CHECK(sum(s, "controller_runtime_reconcile_total", {c, "result=\"error\""}) == 2);
  CHECK(sum(s, "controller_runtime_reconcile_errors_total", {c}) == 2);
  CHECK(sum(s, "controller_runtime_reconcile_time_seconds_count", {c}) >= 7);
  CHECK(sum(s, "controller_runtime_reconcile_time_seconds_bucket", {c, "le=\"+Inf\""}) >= 7);
  CHECK(has(s, "controller_runtime_active_workers", {c}));
  CHECK(sum(s, "controller_runtime_max_concurrent_reconciles", {c}) == 2);
  const std::string q = "name=\"configmaps\"";
  CHECK(sum(s, "workqueue_adds_total", {q}) >= 7);
  CHECK(sum(s, "workqueue_retries_total", {q}) >= 2);
  CHECK(sum(s, "workqueue_depth", {q}) == 0);
  CHECK(sum(s, "workqueue_queue_duration_seconds_count", {q}) >= 7);
  CHECK(sum(s, "workqueue_work_duration_seconds_count", {q}) >= 7);
  CHECK(has(s, "workqueue_unfinished_work_seconds", {q}));
  CHECK(has(s, "workqueue_longest_running_processor_seconds", {q}));
  // Requests: the creates above (201), lists, watches, lease writes.
  CHECK(sum(s, "rest_client_requests_total", {"code=\"201\"", "method=\"POST\""}) >= 5);
  CHECK(sum(s, "rest_client_requests_total", {"method=\"GET\""}) >= 1);
  CHECK(sum(s, "rest_client_request_duration_seconds_count") >= 6);
  CHECK(sum(s, "leader_election_master_status", {"name=\"respool-operator-leader\""}) == 1);

  m.stop();
  runner.join();
  (*endpoints)->stop();
}
