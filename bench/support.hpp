#pragma once
// What the benchmarks that run the whole operator against the sandbox share: failing loudly,
// the source tree's files, medians, the sandbox with respool's API installed and a client
// counted apart from the operator, the operator started in-process, and the operator's writes
// as the sandbox counted them. Not a program (bench/*.cpp are).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/manager.hpp"
#include "reconcilers/setup.hpp"
#include "sandbox/sandbox.hpp"

namespace respool::bench {

using kube::Json;
using Steady = std::chrono::steady_clock;

inline const char* program = "bench";

[[noreturn]] inline void die(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program, what.c_str());
  std::exit(1);
}

template <class T>
T must(std::expected<T, kube::Error> r, const char* what) {
  if (!r) die(std::string(what) + ": " + r.error().describe());
  return std::move(*r);
}

inline std::string source(const char* relative) {
  return std::string(RESPOOL_SOURCE_DIR) + "/" + relative;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
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

// A sandbox with `nodes_yaml`, respool's CRDs and namespace, and a client whose requests are
// counted apart from the operator's; then the operator on the same clock.
class Bench {
 public:
  Bench(const std::string& nodes_yaml, runtime::ScaledClock& clock, std::size_t nodes)
      : clock_(clock) {
    sandbox::SandboxOptions so;
    so.clock = &clock;
    so.nodes_yaml = nodes_yaml;
    auto sb = sandbox::Sandbox::start(so);
    if (!sb) die(sb.error());
    sandbox_ = std::move(*sb);
    kube::ClientOptions bench_client;
    bench_client.user_agent = "bench/" RESPOOL_VERSION;
    auto client = kube::Client::create(sandbox_->cluster_config(), bench_client);
    if (!client) die(client.error().describe());
    client_ = std::move(*client);
    for (const char* crd :
         {"crds/networks.yaml", "crds/resourcepools.yaml", "crds/nodeoperations.yaml"}) {
      auto json = kube::yaml_file_to_json(source(crd));
      if (!json) die(json.error());
      must(client_->create(kube::resources::customresourcedefinitions, "", *json), "create CRD");
    }
    must(client_->create(kube::resources::namespaces, "",
                         Json{{"apiVersion", "v1"},
                              {"kind", "Namespace"},
                              {"metadata", {{"name", "respool-system"}}}}),
         "create namespace");
    while (must(client_->list(kube::resources::nodes, ""), "list nodes")["items"].size() < nodes)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ~Bench() {
    if (manager_) {
      manager_->stop();
      runner_.join();
    }
    sandbox_->stop();
  }

  void start_operator() {
    runtime::ManagerOptions mo;
    mo.cluster = sandbox_->cluster_config();
    mo.clock = &clock_;
    mo.client.qps = 0;
    auto manager = runtime::Manager::create(mo);
    if (!manager) die(manager.error().describe());
    manager_ = std::move(*manager);
    reconcilers::Options ro;
    ro.catalog_file = source("config/catalog.yaml");
    ro.operator_namespace = "respool-system";
    auto op = reconcilers::setup(*manager_, ro);
    if (!op) die(op.error());
    operator_ = std::move(*op);
    runner_ = std::thread([this] { manager_->run(); });
  }

  kube::Client& client() { return *client_; }
  sandbox::RequestCounts& counts() { return sandbox_->api_server().request_counts(); }

  std::string phase_of(const kube::Resource& r, const std::string& name) {
    auto o = client_->get(r, "", name);
    return o ? o->value("status", Json::object()).value("phase", "") : "";
  }
  void wait_for_phase(const kube::Resource& r, const std::string& name, const std::string& phase,
                      std::chrono::minutes limit = std::chrono::minutes(3)) {
    const auto deadline = Steady::now() + limit;
    while (phase_of(r, name) != phase) {
      if (Steady::now() > deadline) die(name + " never reached " + phase);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

 private:
  runtime::ScaledClock& clock_;
  std::unique_ptr<sandbox::Sandbox> sandbox_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<reconcilers::Operator> operator_;
  std::thread runner_;
};

}  // namespace respool::bench
