// The kube client against the sandbox over real HTTPS: CRUD, typed errors, retries, watches,
// and every way a kubeconfig can authenticate.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "apimachinery/base64.hpp"
#include "operator/kube/client.hpp"
#include "sandbox/apiserver/api_server.hpp"

using namespace respool;
using namespace std::chrono_literals;
using kube::Error;
using kube::Json;

namespace {

std::unique_ptr<sandbox::ApiServer> start_server(bool tls = true) {
  sandbox::ApiServerOptions options;
  options.tls = tls;
  auto server = sandbox::ApiServer::start(options);
  REQUIRE(server);
  return std::move(*server);
}

std::unique_ptr<kube::Client> client_for(const kube::ClusterConfig& config,
                                         kube::ClientOptions options = {}) {
  auto client = kube::Client::create(config, std::move(options));
  REQUIRE(client);
  return std::move(*client);
}

Json config_map(const std::string& name, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", value}}}};
}

}  // namespace

TEST_CASE("client CRUD and typed errors", "[client]") {
  auto server = start_server();
  auto client = client_for(server->cluster_config());
  const auto& cm = kube::resources::configmaps;

  auto created = client->create(cm, "default", config_map("a", "1"));
  REQUIRE(created);
  CHECK((*created)["metadata"]["name"] == "a");
  const std::string rv = (*created)["metadata"]["resourceVersion"];

  auto again = client->create(cm, "default", config_map("a", "1"));
  REQUIRE_FALSE(again);
  CHECK(again.error().is(Error::Kind::AlreadyExists));
  CHECK(again.error().code == 409);

  auto missing = client->get(cm, "default", "nope");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().is(Error::Kind::NotFound));
  CHECK(missing.error().message == "configmaps \"nope\" not found");

  Json updated = *created;
  updated["data"]["k"] = "2";
  REQUIRE(client->update(cm, "default", updated));
  // The same stale resourceVersion again: Conflict.
  auto stale = client->update(cm, "default", updated);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().is(Error::Kind::Conflict));

  auto patched =
      client->patch(cm, "default", "a", kube::PatchType::Merge, {{"data", {{"x", "y"}}}});
  REQUIRE(patched);
  CHECK((*patched)["data"]["x"] == "y");
  auto json_patched =
      client->patch(cm, "default", "a", kube::PatchType::Json,
                    Json::array({{{"op", "replace"}, {"path", "/data/k"}, {"value", "3"}}}));
  REQUIRE(json_patched);
  CHECK((*json_patched)["data"]["k"] == "3");

  for (int i = 0; i < 7; ++i)
    REQUIRE(client->create(cm, "default", config_map("page-" + std::to_string(i), "v")));
  kube::ListOptions paged;
  paged.limit = 2;
  auto all = client->list(cm, "default", paged);
  REQUIRE(all);
  CHECK((*all)["items"].size() == 8);
  CHECK_FALSE((*all)["metadata"].contains("continue"));
  int pages = 0;
  REQUIRE(client->list_pages(cm, "default", paged, [&](std::string_view) {
    ++pages;
    return true;
  }));
  CHECK(pages == 4);

  kube::ListOptions selected;
  selected.field_selector = "metadata.name=a";
  auto one = client->list(cm, "default", selected);
  REQUIRE(one);
  CHECK((*one)["items"].size() == 1);

  auto removed = client->remove(cm, "default", "a");
  REQUIRE(removed);
  auto gone = client->get(cm, "default", "a");
  REQUIRE_FALSE(gone);
  CHECK(gone.error().is(Error::Kind::NotFound));
  (void)rv;
}

TEST_CASE("client retries 5xx and honours 429 Retry-After", "[client][retry]") {
  auto server = start_server();
  kube::ClientOptions options;
  options.initial_backoff = 10ms;
  int observed = 0;
  options.observe = [&](std::string_view, std::string_view, int, double) { ++observed; };
  auto client = client_for(server->cluster_config(), options);
  const auto& cm = kube::resources::configmaps;
  REQUIRE(client->create(cm, "default", config_map("r", "1")));

  // A storm of 500s on GET is survived within the retry budget.
  server->faults().fail_next({"get", "configmaps", sandbox::FaultRule::Action::ServerError, 3, 0});
  observed = 0;
  auto got = client->get(cm, "default", "r");
  REQUIRE(got);
  CHECK(observed == 4);

  // More 500s than retries: the error comes back, typed.
  server->faults().fail_next({"get", "configmaps", sandbox::FaultRule::Action::ServerError, 10, 0});
  auto failed = client->get(cm, "default", "r");
  REQUIRE_FALSE(failed);
  CHECK(failed.error().is(Error::Kind::ServerError));
  server->faults().clear();

  // A POST is not repeated after a 500 (it may have been applied)...
  server->faults().fail_next(
      {"create", "configmaps", sandbox::FaultRule::Action::ServerError, 1, 0});
  auto post = client->create(cm, "default", config_map("s", "1"));
  REQUIRE_FALSE(post);
  CHECK(post.error().code == 500);
  // ...but it is after a 429, which the server did not act on; Retry-After is waited out.
  server->faults().fail_next(
      {"create", "configmaps", sandbox::FaultRule::Action::TooManyRequests, 1, 1});
  auto start = std::chrono::steady_clock::now();
  auto retried = client->create(cm, "default", config_map("s", "1"));
  REQUIRE(retried);
  CHECK(std::chrono::steady_clock::now() - start >= 1s);
  // A 429 without Retry-After (a PodDisruptionBudget refusing an eviction) is an answer: no
  // retry, no wait.
  server->faults().fail_next(
      {"create", "configmaps", sandbox::FaultRule::Action::TooManyRequests, 1, 0});
  observed = 0;
  auto refused = client->create(cm, "default", config_map("t", "1"));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().is(Error::Kind::TooManyRequests));
  CHECK(observed == 1);

  // Conflicts are the caller's to retry: retry_on_conflict re-reads and succeeds.
  server->faults().fail_next({"update", "configmaps", sandbox::FaultRule::Action::Conflict, 2, 0});
  int attempts = 0;
  auto updated = kube::retry_on_conflict([&]() -> kube::Result<Json> {
    ++attempts;
    auto current = client->get(cm, "default", "r");
    if (!current) return current;
    (*current)["data"]["k"] = "after-conflicts";
    return client->update(cm, "default", *current);
  });
  REQUIRE(updated);
  CHECK(attempts == 3);
  CHECK((*updated)["data"]["k"] == "after-conflicts");
}

TEST_CASE("client watch streams events from a resourceVersion", "[client][watch]") {
  auto server = start_server();
  auto client = client_for(server->cluster_config());
  const auto& cm = kube::resources::configmaps;
  auto list = client->list(cm, "default");
  REQUIRE(list);
  kube::WatchOptions options;
  options.resource_version = (*list)["metadata"]["resourceVersion"];
  options.timeout_seconds = 30;
  auto watch = client->watch(cm, "default", options);
  REQUIRE(watch);
  REQUIRE(client->create(cm, "default", config_map("w", "1")));
  auto line = (*watch)->next_line(10s);
  REQUIRE(line);
  REQUIRE(line->has_value());
  auto event = Json::parse(**line);
  CHECK(event["type"] == "ADDED");
  CHECK(event["object"]["metadata"]["name"] == "w");

  // cancel() from another thread unblocks a waiting read at once.
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    (*watch)->cancel();
  });
  auto cancelled = (*watch)->next_line(60s);
  canceller.join();
  REQUIRE_FALSE(cancelled);
  CHECK(cancelled.error().is(Error::Kind::Cancelled));

  // A watch from a version the server no longer remembers gets an ERROR event (410).
  server->faults().expire_next_watches(1);
  auto expired = client->watch(cm, "default", options);
  REQUIRE(expired);
  auto error_line = (*expired)->next_line(10s);
  REQUIRE(error_line);
  REQUIRE(error_line->has_value());
  auto error_event = Json::parse(**error_line);
  CHECK(error_event["type"] == "ERROR");
  CHECK(error_event["object"]["code"] == 410);
}

namespace {
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("respool-client-test-" + std::to_string(::getpid()) + "-" +
            std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path write(const std::string& name, const std::string& content) const {
    auto p = path / name;
    std::ofstream(p) << content;
    return p;
  }
};
}  // namespace

TEST_CASE("kubeconfig variants authenticate against the sandbox", "[client][config]") {
  auto server = start_server();
  const auto base = server->cluster_config();
  auto can_list = [](const kube::ClusterConfig& config) {
    auto client = kube::Client::create(config);
    REQUIRE(client);
    return (*client)->list(kube::resources::namespaces, "");
  };

  SECTION("the kubeconfig the sandbox wrote") {
    auto loaded = kube::load_kubeconfig(server->kubeconfig_path(), std::nullopt);
    REQUIRE(loaded);
    CHECK(can_list(*loaded));
  }
  SECTION("token file, re-read when it changes") {
    TempDir dir;
    auto token = dir.write("token", "wrong-token\n");
    kube::ClusterConfig config = base;
    config.token.clear();
    config.token_file = token;
    auto before = can_list(config);
    REQUIRE_FALSE(before);
    CHECK(before.error().is(Error::Kind::Unauthorized));
    std::this_thread::sleep_for(20ms);  // a distinct modification time
    dir.write("token", server->token() + "\n");
    std::filesystem::last_write_time(token, std::filesystem::file_time_type::clock::now() + 1s);
    CHECK(can_list(config));
  }
  SECTION("CA from a file, client certificate instead of a token") {
    TempDir dir;
    auto cert = server->issue_client_cert("alice", {"system:masters"});
    REQUIRE(cert);
    auto ca = dir.write("ca.crt", server->ca_cert_pem());
    auto crt = dir.write("client.crt", cert->cert_pem);
    auto key = dir.write("client.key", cert->key_pem);
    auto path =
        dir.write("config", "current-context: c\nclusters: [{name: k, cluster: {server: \"" +
                                server->url() + "\", certificate-authority: " + ca.string() +
                                "}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
                                "users: [{name: u, user: {client-certificate: " +
                                crt.string() + ", client-key: " + key.string() + "}}]\n");
    auto loaded = kube::load_kubeconfig(path, std::nullopt);
    REQUIRE(loaded);
    CHECK(loaded->token.empty());
    CHECK(can_list(*loaded));
  }
  SECTION("a wrong CA fails fast with a TLS error") {
    auto other = sandbox::ApiServer::start({});
    REQUIRE(other);
    kube::ClusterConfig config = base;
    config.tls.ca_pem = (*other)->ca_cert_pem();
    auto start = std::chrono::steady_clock::now();
    auto result = can_list(config);
    REQUIRE_FALSE(result);
    CHECK(result.error().is(Error::Kind::Network));
    CHECK_THAT(result.error().message, Catch::Contains("Tls") || Catch::Contains("certificate"));
    CHECK(std::chrono::steady_clock::now() - start < 10s);
  }
  SECTION("insecure-skip-tls-verify") {
    kube::ClusterConfig config = base;
    config.tls.ca_pem.clear();
    config.tls.insecure_skip_verify = true;
    CHECK(can_list(config));
  }
}
