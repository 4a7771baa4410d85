// Node operations in the sandbox, the whole operator in one process over real HTTPS:
// - the time to replace one node end to end (apply of the NodeOperation to Succeeded: cordon,
//   drain, claim, admission, retire) in a 40-node pool, one replacement after the other;
// - the operator's API writes per replacement, by verb and resource, against the minimal count:
//   the ledger entry (pool status), the operation's finalizer, the mark and cordon, the claim,
//   the end of the replacement's admission, the retirement, the operation's status once Running
//   and once Succeeded, and the ledger's release (pool status) = 9; events are counted apart;
// - the writes of a quiet simulated hour once 10 operations have finished (5 replaces, 5
//   resets): should be 0.
//
//   build/bench/bench_node_operations [ROUNDS] 2>/dev/null
//
// Every node is Ready at once and no job runs on it (nothing to drain): the figures are the
// operator's own, not a simulated kubelet's.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/log.hpp"
#include "operator/runtime/manager.hpp"
#include "reconcilers/setup.hpp"
#include "sandbox/sandbox.hpp"

using namespace respool;
using kube::Json;
using Steady = std::chrono::steady_clock;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_node_operations: %s\n", what.c_str());
  std::exit(1);
}

template <class T>
T must(std::expected<T, kube::Error> r, const char* what) {
  if (!r) die(std::string(what) + ": " + r.error().describe());
  return std::move(*r);
}

std::string source(const char* relative) {
  return std::string(RESPOOL_SOURCE_DIR) + "/" + relative;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string phase_of(kube::Client& c, const kube::Resource& r, const std::string& name) {
  auto o = c.get(r, "", name);
  return o ? o->value("status", Json::object()).value("phase", "") : "";
}

void wait_for(kube::Client& c, const kube::Resource& r, const std::string& name,
              const std::string& phase) {
  const auto deadline = Steady::now() + std::chrono::minutes(3);
  while (phase_of(c, r, name) != phase) {
    if (Steady::now() > deadline) die(name + " never reached " + phase);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Waits until the operator has written nothing for `quiet` (its last status and events).
void settle(sandbox::RequestCounts& counts, std::chrono::milliseconds quiet) {
  auto before = counts.writes("respool");
  for (;;) {
    std::this_thread::sleep_for(quiet);
    const auto now = counts.writes("respool");
    if (now == before) return;
    before = now;
  }
}

std::map<std::string, std::uint64_t> writes_by(sandbox::RequestCounts& counts) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [key, n] : counts.snapshot()) {
    if (key.agent == "respool" && sandbox::is_write_verb(key.verb))
      out[key.verb + " " + key.resource] += n;
  }
  return out;
}

Json operation(const std::string& name, const std::string& type, const std::string& node) {
  Json op = {{"apiVersion", "respool.io/v1alpha1"},
             {"kind", "NodeOperation"},
             {"metadata", {{"name", name}}},
             {"spec", {{"pool", "p"}, {"type", type}, {"nodes", Json::array({node})}}}};
  if (type == "Reset") op["spec"]["reset"] = {{"os", "ubuntu-22.04"}};
  return op;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (rounds < 1 || rounds > 8) die("ROUNDS: 1 to 8 (N1: 8 replacements a day in a 40-node pool)");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  runtime::ScaledClock clock(1.0);
  sandbox::SandboxOptions so;
  so.clock = &clock;
  so.nodes_yaml =
      "nodes:\n- {flavor: cpu-64c, zone: az-1, count: 50, namePrefix: n-, capacity: "
      "{cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n";
  auto sb = sandbox::Sandbox::start(so);
  if (!sb) die(sb.error());
  auto& counts = (*sb)->api_server().request_counts();
  kube::ClientOptions bench_client;
  bench_client.user_agent = "bench/" RESPOOL_VERSION;  // counted apart from the operator
  auto client = kube::Client::create((*sb)->cluster_config(), bench_client);
  if (!client) die(client.error().describe());
  kube::Client& c = **client;
  for (const char* crd :
       {"crds/networks.yaml", "crds/resourcepools.yaml", "crds/nodeoperations.yaml"}) {
    auto json = kube::yaml_file_to_json(source(crd));
    if (!json) die(json.error());
    must(c.create(kube::resources::customresourcedefinitions, "", *json), "create CRD");
  }
  must(c.create(kube::resources::namespaces, "",
                Json{{"apiVersion", "v1"},
                     {"kind", "Namespace"},
                     {"metadata", {{"name", "respool-system"}}}}),
       "create namespace");
  for (;;) {
    auto nodes = must(c.list(kube::resources::nodes, ""), "list nodes");
    if (nodes["items"].size() == 50) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const auto& node : must(c.list(kube::resources::nodes, ""), "list nodes")["items"]) {
    // Resets take a simulated second.
    Json patch = {{"metadata", {{"annotations", {{"sandbox.respool.io/reset-seconds", "1"}}}}}};
    must(c.patch(kube::resources::nodes, "", node["metadata"]["name"].get<std::string>(),
                 kube::PatchType::Merge, patch),
         "annotate node");
  }

  runtime::ManagerOptions mo;
  mo.cluster = (*sb)->cluster_config();
  mo.clock = &clock;
  mo.client.qps = 0;
  auto manager = runtime::Manager::create(mo);
  if (!manager) die(manager.error().describe());
  reconcilers::Options ro;
  ro.catalog_file = source("config/catalog.yaml");
  ro.operator_namespace = "respool-system";
  auto op = reconcilers::setup(**manager, ro);
  if (!op) die(op.error());
  std::thread runner([&] { (*manager)->run(); });
  must(c.create(kube::resources::networks, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "Network"},
                     {"metadata", {{"name", "net-a"}}},
                     {"spec", Json::object()}}),
       "create network");
  must(c.create(kube::resources::resourcepools, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "ResourcePool"},
                     {"metadata", {{"name", "p"}}},
                     {"spec",
                      {{"network", "net-a"},
                       {"jobTypes", Json::array({"Training"})},
                       {"resources", Json::array({{{"flavor", "cpu-64c"}, {"count", 40}}})}}}}),
       "create pool");
  wait_for(c, kube::resources::resourcepools, "p", "Running");
  settle(counts, std::chrono::milliseconds(1500));

  kube::ListOptions in_pool;
  in_pool.label_selector = "respool.io/pool=p";
  auto members = must(c.list(kube::resources::nodes, "", in_pool), "list pool");
  std::vector<std::string> names;
  for (const auto& n : members["items"])
    names.push_back(n["metadata"]["name"]);
  std::sort(names.begin(), names.end());

  std::vector<double> seconds, write_counts, event_counts;
  const std::uint64_t minimal = 9;
  for (int r = 0; r < rounds; ++r) {
    counts.reset();
    const std::string name = "replace-" + std::to_string(r);
    const auto start = Steady::now();
    must(c.create(kube::resources::nodeoperations, "", operation(name, "Replace", names[r])),
         "create operation");
    wait_for(c, kube::resources::nodeoperations, name, "Succeeded");
    const double s = std::chrono::duration<double>(Steady::now() - start).count();
    settle(counts, std::chrono::milliseconds(1500));  // the ledger's release comes after
    std::uint64_t total = 0, events = 0;
    std::string detail;
    for (const auto& [what, n] : writes_by(counts)) {
      if (what.ends_with(" events")) {
        events += n;
        continue;
      }
      total += n;
      detail += " " + what + " x" + std::to_string(n) + ";";
    }
    seconds.push_back(s);
    write_counts.push_back(double(total));
    event_counts.push_back(double(events));
    std::printf("replace %d: %.3f s end to end, %llu writes (minimal %llu), %llu events:%s\n", r, s,
                static_cast<unsigned long long>(total), static_cast<unsigned long long>(minimal),
                static_cast<unsigned long long>(events), detail.c_str());
  }
  std::printf(
      "median: %.3f s per replacement; %.0f writes per replacement, ratio %.2f against %llu "
      "minimal; %.0f events\n",
      median(seconds), median(write_counts), median(write_counts) / double(minimal),
      static_cast<unsigned long long>(minimal), median(event_counts));

  // Ten finished operations, then a quiet simulated hour.
  const int resets = 10 - rounds;
  for (int r = 0; r < resets; ++r) {
    const std::string name = "reset-" + std::to_string(r);
    must(c.create(kube::resources::nodeoperations, "", operation(name, "Reset", names[20 + r])),
         "create reset");
    wait_for(c, kube::resources::nodeoperations, name, "Succeeded");
  }
  settle(counts, std::chrono::milliseconds(2000));
  counts.reset();
  for (int minute = 0; minute < 60; ++minute) {  // the hour passes in a minute's steps
    clock.jump(std::chrono::minutes(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
  std::string detail;
  std::uint64_t quiet = 0;
  for (const auto& [what, n] : writes_by(counts)) {
    quiet += n;
    detail += " " + what + " x" + std::to_string(n) + ";";
  }
  std::printf("quiet hour after %d finished operations (%d replaces, %d resets): %llu writes%s\n",
              rounds + resets, rounds, resets, static_cast<unsigned long long>(quiet),
              detail.c_str());
  (*manager)->stop();
  runner.join();
  (*sb)->stop();
  return 0;
}
