// Informers against the sandbox over HTTPS: list+watch, and the watch chaos of issue 3 — forced
// watch closes and 410s interleaved with creates, updates and deletes; afterwards the cache
// equals the server's state exactly and the final state of every object reached the handlers.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "operator/kube/client.hpp"
#include "operator/runtime/informer.hpp"
#include "sandbox/apiserver/api_server.hpp"

using namespace respool;
using namespace std::chrono_literals;
using kube::Json;

namespace {

Json config_map(const std::string& name, int value) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "chaos"}}}}},
          {"data", {{"v", std::to_string(value)}}}};
}

// What the handlers were told, per key: the last resourceVersion, or "" once deleted.
struct Seen {
  std::mutex mu;
  std::map<std::string, std::string> last;
  int adds = 0, updates = 0, deletes = 0;

  runtime::Informer<kube::Unstructured>::Handlers handlers() {
    runtime::Informer<kube::Unstructured>::Handlers h;
    h.on_add = [this](const auto& o) {
      std::lock_guard lock(mu);
      ++adds;
      last[o->meta.key()] = o->meta.resource_version;
    };
    h.on_update = [this](const auto&, const auto& o) {
      std::lock_guard lock(mu);
      ++updates;
      last[o->meta.key()] = o->meta.resource_version;
    };
    h.on_delete = [this](const auto& o) {
      std::lock_guard lock(mu);
      ++deletes;
      last[o->meta.key()] = "";
    };
    return h;
  }
};

// name → resourceVersion on the server.
std::map<std::string, std::string> server_state(kube::Client& client) {
  auto list = client.list(kube::resources::configmaps, "default");
  REQUIRE(list);
  std::map<std::string, std::string> out;
  for (const auto& item : (*list)["items"]) {
    out["default/" + item["metadata"]["name"].get<std::string>()] =
        item["metadata"]["resourceVersion"];
  }
  return out;
}

std::map<std::string, std::string> cache_state(const runtime::Store<kube::Unstructured>& store) {
  std::map<std::string, std::string> out;
  store.for_each([&](const kube::Unstructured& o) { out[o.meta.key()] = o.meta.resource_version; });
  return out;
}

template <class F>
bool eventually(F&& condition, std::chrono::seconds limit = 30s) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return condition();
}

}  // namespace

TEST_CASE("an informer lists, then follows changes", "[informer]") {
  auto server = sandbox::ApiServer::start({});
  REQUIRE(server);
  auto client = kube::Client::create((*server)->cluster_config());
  REQUIRE(client);
  auto& c = **client;
  REQUIRE(c.create(kube::resources::configmaps, "default", config_map("before", 1)));

  runtime::InformerOptions io;
  io.resource = kube::resources::configmaps;
  io.ns = "default";
  runtime::Informer<kube::Unstructured> informer(c, runtime::real_clock(), io);
  Seen seen;
  informer.add_handlers(seen.handlers());
  informer.start();
  REQUIRE(informer.wait_for_sync(30s));
  CHECK(informer.store().get("default/before"));

  REQUIRE(c.create(kube::resources::configmaps, "default", config_map("after", 2)));
  REQUIRE(eventually([&] { return informer.store().get("default/after") != nullptr; }));
  REQUIRE(c.patch(kube::resources::configmaps, "default", "after", kube::PatchType::Merge,
                  {{"data", {{"v", "3"}}}}));
  REQUIRE(eventually([&] {
    auto o = informer.store().get("default/after");
    return o && o->object["data"]["v"] == "3";
  }));
  REQUIRE(c.remove(kube::resources::configmaps, "default", "before"));
  REQUIRE(eventually([&] { return informer.store().get("default/before") == nullptr; }));
  informer.stop();
  std::lock_guard lock(seen.mu);
  CHECK(seen.adds == 2);
  CHECK(seen.updates >= 1);
  CHECK(seen.deletes == 1);
}

TEST_CASE("watch chaos: the cache ends equal to the server", "[informer][chaos]") {
  sandbox::ApiServerOptions options;
  options.watch_history = 40;  // small, so that resuming often finds its version gone
  auto server = sandbox::ApiServer::start(options);
  REQUIRE(server);
  auto client = kube::Client::create((*server)->cluster_config());
  REQUIRE(client);
  auto& c = **client;
  auto& faults = (*server)->faults();

  runtime::InformerOptions io;
  io.resource = kube::resources::configmaps;
  io.ns = "default";
  io.label_selector = "app=chaos";
  io.min_watch_timeout = 2s;
  io.initial_backoff = 20ms;
  io.max_backoff = 200ms;
  io.page_size = 7;
  runtime::Informer<kube::Unstructured> informer(c, runtime::real_clock(), io);
  Seen seen;
  informer.add_handlers(seen.handlers());
  informer.start();
  REQUIRE(informer.wait_for_sync(30s));

  std::mt19937 rng(42);
  std::vector<std::string> live;
  int next = 0;
  for (int op = 0; op < 400; ++op) {
    int dice = static_cast<int>(rng() % 10);
    if (live.empty() || dice < 4) {
      std::string name = "cm-" + std::to_string(next++);
      REQUIRE(c.create(kube::resources::configmaps, "default", config_map(name, op)));
      live.push_back(name);
    } else if (dice < 8) {
      const auto& name = live[rng() % live.size()];
      REQUIRE(c.patch(kube::resources::configmaps, "default", name, kube::PatchType::Merge,
                      {{"data", {{"v", std::to_string(op)}}}}));
    } else {
      std::size_t i = rng() % live.size();
      REQUIRE(c.remove(kube::resources::configmaps, "default", live[i]));
      live.erase(live.begin() + static_cast<long>(i));
    }
    if (op % 25 == 0) faults.close_watches();
    if (op % 60 == 30) faults.expire_next_watches(1);
  }

  auto expected = server_state(c);
  CHECK(expected.size() == live.size());
  REQUIRE(eventually([&] { return cache_state(informer.store()) == expected; }, 60s));
  // Every object's final state reached the handlers: live ones at their last version, deleted
  // ones as deleted.
  std::lock_guard lock(seen.mu);
  for (const auto& [key, rv] : expected)
    CHECK(seen.last[key] == rv);
  for (const auto& [key, rv] : seen.last) {
    if (!expected.contains(key)) CHECK(rv.empty());
  }
  auto stats = informer.stats();
  CHECK(stats.watches > 3);  // watches were really interrupted and resumed
  CHECK(stats.lists >= 2);   // and at least one 410 forced a relist
  informer.stop();
}
