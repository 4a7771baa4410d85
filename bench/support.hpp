#pragma once
// What the benchmarks that run the whole operator against the sandbox share (beside
// harness.hpp's failing, time limit and medians): the sandbox with respool's whole API (every
// CRD of crds/) and a client counted apart from the operator, the operator started in-process
// (a benchmark fails at once with the manager's reason when it stops), and the operator's writes
// as the sandbox counted them. Not a program (bench/*.cpp are).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "operator/kube/client.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/manager.hpp"
#include "reconcilers/setup.hpp"
#include "sandbox/sandbox.hpp"

namespace respool::bench {

using kube::Json;
// A pool of `count` nodes of `flavor` for training jobs, on a network of its own (net-NAME).
inline void training_pool(kube::Client& c, const std::string& name, const std::string& flavor,
                          int count) {
  must(c.create(kube::resources::networks, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "Network"},
                     {"metadata", {{"name", "net-" + name}}},
                     {"spec", Json::object()}}),
       "create network");
  must(c.create(kube::resources::resourcepools, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "ResourcePool"},
                     {"metadata", {{"name", name}}},
                     {"spec",
                      {{"network", "net-" + name},
                       {"jobTypes", Json::array({"Training"})},
                       {"resources", Json::array({{{"flavor", flavor}, {"count", count}}})}}}}),
       "create pool");
}

// Waits until the operator has written nothing for `quiet` (its last status and events).
inline void settle(sandbox::RequestCounts& counts, std::chrono::milliseconds quiet) {
  auto before = counts.writes("respool");
  for (;;) {
    std::this_thread::sleep_for(quiet);
    const auto now = counts.writes("respool");
    if (now == before) return;
    before = now;
  }
}

// The operator's writes since the counts were reset, by "verb resource".
inline std::map<std::string, std::uint64_t> writes_by(sandbox::RequestCounts& counts) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [key, n] : counts.snapshot()) {
    if (key.agent == "respool" && sandbox::is_write_verb(key.verb))
      out[key.verb + " " + key.resource] += n;
  }
  return out;
}

// The operator's writes since the counts were reset, events apart: totals and "verb resource xN;"
// for each.
struct WriteSummary {
  std::uint64_t writes = 0, events = 0;
  std::string detail;
};
inline WriteSummary summarize_writes(sandbox::RequestCounts& counts) {
  WriteSummary out;
  for (const auto& [what, n] : writes_by(counts)) {
    if (what.ends_with(" events")) {
      out.events += n;
      continue;
    }
    out.writes += n;
    out.detail += " " + what + " x" + std::to_string(n) + ";";
  }
  return out;
}

// Every CustomResourceDefinition of crds/, in name order: the whole API the operator watches.
inline std::vector<std::string> crd_files() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(source("crds"))) {
    if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) die("no CRDs in " + source("crds"));
  return out;
}

struct BenchOptions {
  std::string nodes_yaml;  // the simulator's nodes
  std::size_t nodes = 0;   // how many must have registered before the benchmark goes on
  runtime::ScaledClock* clock = nullptr;  // nullptr: the real clock
  std::string catalog = source("config/catalog.yaml");
};

// A sandbox with the options' nodes, respool's CRDs and namespace, and a client whose requests
// are counted apart from the operator's; then the operator on the same clock.
class Bench {
 public:
  explicit Bench(BenchOptions options) : options_(std::move(options)) {
    phase("starting the sandbox");
    sandbox::SandboxOptions so;
    so.clock = options_.clock;
    so.nodes_yaml = options_.nodes_yaml;
    auto sb = sandbox::Sandbox::start(so);
    if (!sb) die(sb.error());
    sandbox_ = std::move(*sb);
    kube::ClientOptions bench_client;
    bench_client.user_agent = "bench/" RESPOOL_VERSION;
    auto client = kube::Client::create(sandbox_->cluster_config(), bench_client);
    if (!client) die(client.error().describe());
    client_ = std::move(*client);
    phase("installing the CRDs of crds/");
    for (const auto& crd : crd_files()) {
      auto json = kube::yaml_file_to_json(crd);
      if (!json) die(json.error());
      must(client_->create(kube::resources::customresourcedefinitions, "", *json), "create CRD");
    }
    must(client_->create(kube::resources::namespaces, "",
                         Json{{"apiVersion", "v1"},
                              {"kind", "Namespace"},
                              {"metadata", {{"name", "respool-system"}}}}),
         "create namespace");
    phase("waiting for " + std::to_string(options_.nodes) + " nodes to register");
    const auto registering = Steady::now();
    while (must(client_->list(kube::resources::nodes, ""), "list nodes")["items"].size() <
           options_.nodes)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    registered_s_ = std::chrono::duration<double>(Steady::now() - registering).count();
  }
  // Kept for the benchmarks that pass nodes and a simulated clock.
  Bench(const std::string& nodes_yaml, runtime::ScaledClock& clock, std::size_t nodes)
      : Bench(BenchOptions{nodes_yaml, nodes, &clock}) {}
  ~Bench() {
    stop_operator();
    sandbox_->stop();
  }

  // The operator in-process with the benchmark's catalog; when its manager returns without
  // being asked to (caches never synced, a lost lease), the benchmark ends at once with the
  // manager's reason.
  void start_operator() {
    phase("starting the operator");
    runtime::ManagerOptions mo;
    mo.cluster = sandbox_->cluster_config();
    mo.clock = options_.clock;
    mo.client.qps = 0;  // as a loop without a limiter: the server sets the pace
    mo.install_crd_hint = "bench/support.hpp installs every CRD of crds/";
    auto manager = runtime::Manager::create(mo);
    if (!manager) die(manager.error().describe());
    manager_ = std::move(*manager);
    reconcilers::Options ro;
    ro.catalog_file = options_.catalog;
    ro.operator_namespace = "respool-system";
    auto op = reconcilers::setup(*manager_, ro);
    if (!op) die(op.error());
    operator_ = std::move(*op);
    stopping_ = false;
    runner_ = std::thread([this] {
      const int code = manager_->run();
      if (!stopping_)
        die("the operator stopped (exit " + std::to_string(code) + "): " + manager_->failure());
    });
  }
  void stop_operator() {
    if (!manager_) return;
    stopping_ = true;
    manager_->stop();
    runner_.join();
    operator_.reset();
    manager_.reset();
  }

  kube::Client& client() { return *client_; }
  sandbox::Sandbox& sandbox() { return *sandbox_; }
  sandbox::RequestCounts& counts() { return sandbox_->api_server().request_counts(); }
  double registered_s() const { return registered_s_; }

  std::string phase_of(const kube::Resource& r, const std::string& name) {
    auto o = client_->get(r, "", name);
    return o ? o->value("status", Json::object()).value("phase", "") : "";
  }
  void wait_for_phase(const kube::Resource& r, const std::string& name, const std::string& phase,
                      std::chrono::minutes limit = std::chrono::minutes(3)) {
    bench::phase("waiting for " + r.kind + " " + name + " to reach " + phase);
    const auto deadline = Steady::now() + limit;
    while (phase_of(r, name) != phase) {
      if (Steady::now() > deadline) die(name + " never reached " + phase);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

 private:
  BenchOptions options_;
  std::unique_ptr<sandbox::Sandbox> sandbox_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<reconcilers::Operator> operator_;
  std::atomic<bool> stopping_{false};
  std::thread runner_;
  double registered_s_ = 0;
};

}  // namespace respool::bench
