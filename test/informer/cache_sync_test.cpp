// A manager whose caches cannot sync says which and why, and gives up at its timeout (issue 33):
// against the sandbox without the NodeOperation CRD, its informer's list answers 404.
#include <catch2/catch.hpp>

#include "operator/kube/client.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/manager.hpp"
#include "sandbox/apiserver/api_server.hpp"

using namespace respool;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<runtime::Manager> manager_for(sandbox::ApiServer& server,
                                              std::chrono::seconds timeout) {
  runtime::ManagerOptions mo;
  mo.cluster = server.cluster_config();
  mo.cache_sync_timeout = timeout;
  mo.cache_sync_report_period = 200ms;
  mo.install_crd_hint = "install it with kubectl apply -f crds/";
  auto m = runtime::Manager::create(mo);
  REQUIRE(m);
  runtime::InformerOptions nodes;
  nodes.resource = kube::resources::nodes;
  (*m)->add_informer<kube::Node>(nodes);
  runtime::InformerOptions operations;
  operations.resource = kube::resources::nodeoperations;
  operations.initial_backoff = 100ms;
  (*m)->add_informer<kube::Unstructured>(operations);
  return std::move(*m);
}

}  // namespace

TEST_CASE("a cache that never syncs is named with its reason, and run() fails at the timeout",
          "[manager][cache-sync]") {
  auto server = sandbox::ApiServer::start({});
  REQUIRE(server);
  auto m = manager_for(**server, 3s);
  const auto start = std::chrono::steady_clock::now();
  CHECK(m->run() == 1);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(took >= 3s);
  CHECK(took < 30s);
  CHECK_FALSE(m->caches_synced());
  auto missing = m->unsynced_caches();
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].starts_with("nodeoperations.respool.io: not served by the API server (404"));
  CHECK(missing[0].ends_with("install it with kubectl apply -f crds/"));
  CHECK(
      m->failure().starts_with("caches did not sync within 3s (--cache-sync-timeout): "
                               "nodeoperations.respool.io: not served"));
}

TEST_CASE("a CRD installed while the manager waits lets it start", "[manager][cache-sync]") {
  auto server = sandbox::ApiServer::start({});
  REQUIRE(server);
  auto m = manager_for(**server, 60s);
  std::thread runner([&] { m->run(); });
  // Wait until the 404 shows, then install the CRD.
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto missing = m->unsynced_caches();
    if (missing.size() == 1 && missing[0].find("(404") != std::string::npos) break;
    std::this_thread::sleep_for(20ms);
  }
  auto missing = m->unsynced_caches();
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].find("(404") != std::string::npos);
  auto client = kube::Client::create((*server)->cluster_config());
  REQUIRE(client);
  auto crd = kube::yaml_file_to_json(RESPOOL_SOURCE_DIR "/crds/nodeoperations.yaml");
  REQUIRE(crd);
  REQUIRE((*client)->create(kube::resources::customresourcedefinitions, "", *crd));
  deadline = std::chrono::steady_clock::now() + 60s;
  while (!m->caches_synced() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  CHECK(m->caches_synced());
  CHECK(m->unsynced_caches().empty());
  m->stop();
  runner.join();
  CHECK(m->failure().empty());
}
