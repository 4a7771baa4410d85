// A 1,000-node pool claimed from 5,000 free nodes: the sandbox (API server and simulator) and
// the whole operator in one process, over real HTTPS. Prints the time from apply to Running,
// the operator's API writes by verb and resource, and both as ratios:
// - writes against the minimal writes: per node one claim and one end of admission, plus the
//   finalizer, the plug-in DaemonSets and one status write;
// - time against a plain loop that issues the same per-node writes (a guarded claim patch, then
//   the admission patch) with the same concurrency (one pool is one key: one worker) against the
//   same sandbox, on 1,000 other free nodes. The loop writes the very patches the operator
//   writes, the pool's name included: the cluster reacts to them the same way (the pool's
//   plug-in DaemonSet starts a pod on every node that joins it), so both pay for that reaction.
//
//   build/bench/bench_pool_creation [POOL_NODES [FREE_NODES [ROUNDS [no-plugins]]]] 2>/dev/null
//
// no-plugins runs the operator with config/catalog.yaml minus its plug-ins: no DaemonSet pod
// follows a claim, which measures the operator without the cluster's reaction to its writes.
//
// Each round starts a new sandbox; the figures are per round, then the medians (ratios are
// medians of the per-round ratios).
//
// Every node is Ready with its accelerators at once, so admission ends as soon as the operator
// sees it; the figures are the operator's overhead, not a simulated kubelet's.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

namespace {

struct Round {
  double operator_s = 0, loop_s = 0;
  std::uint64_t writes = 0, minimal = 0;
};

Round run_round(int pool_nodes, int free_nodes, const std::string& catalog) {
  const std::string nodes_yaml =
      "nodes:\n- {flavor: cpu-64c, zone: az-1, count: " + std::to_string(free_nodes) +
      ", namePrefix: cpu, capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n";
  Bench bench(BenchOptions{nodes_yaml, static_cast<std::size_t>(free_nodes), nullptr, catalog});
  auto& counts = bench.counts();
  kube::Client& c = bench.client();
  const double register_s = bench.registered_s();
  bench.start_operator();
  phase("waiting for Network net-a's CIDR");
  must(c.create(kube::resources::networks, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "Network"},
                     {"metadata", {{"name", "net-a"}}},
                     {"spec", Json::object()}}),
       "create network");
  while (true) {
    auto n = c.get(kube::resources::networks, "", "net-a");
    if (n && n->value("status", Json::object()).value("cidr", "") != "") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  // The operator.
  counts.reset();
  const auto start = Steady::now();
  must(c.create(
           kube::resources::resourcepools, "",
           Json{{"apiVersion", "respool.io/v1alpha1"},
                {"kind", "ResourcePool"},
                {"metadata", {{"name", "big"}}},
                {"spec",
                 {{"network", "net-a"},
                  {"jobTypes", Json::array({"Training"})},
                  {"resources", Json::array({{{"flavor", "cpu-64c"}, {"count", pool_nodes}}})}}}}),
       "create pool");
  bench.wait_for_phase(kube::resources::resourcepools, "big", "Running", std::chrono::minutes(20));
  const double operator_s = std::chrono::duration<double>(Steady::now() - start).count();
  const auto writes = counts.snapshot();
  std::uint64_t total = 0, node_writes = 0, daemonsets = 0, events = 0;
  for (const auto& [key, n] : writes) {
    if (key.agent != "respool" || !sandbox::is_write_verb(key.verb)) continue;
    total += n;
    if (key.resource == "nodes") node_writes += n;
    if (key.resource == "daemonsets") daemonsets += n;
    if (key.resource == "events") events += n;
  }
  const std::uint64_t minimal = 2ull * pool_nodes + daemonsets + 2;  // + finalizer, status
  bench.stop_operator();

  // The plain loop: the same two writes per node, one after the other, on free nodes.
  kube::ListOptions free_only;
  free_only.label_selector = "!respool.io/pool";
  auto free_list = must(c.list(kube::resources::nodes, "", free_only), "list free nodes");
  phase("the plain loop");
  const auto loop_start = Steady::now();
  int done = 0;
  for (const auto& node : free_list["items"]) {
    if (done == pool_nodes) break;
    const std::string name = node["metadata"]["name"];
    Json claim = {
        {"metadata",
         {{"resourceVersion", node["metadata"]["resourceVersion"]},
          {"labels", {{"respool.io/pool", "big"}, {"respool.io/job-type.training", "true"}}},
          {"annotations", {{"respool.io/container-engine-space", "50"}}}}},
        {"spec",
         {{"taints",
           Json::array({{{"key", "respool.io/pool"}, {"value", "big"}, {"effect", "NoSchedule"}},
                        {{"key", "isolation.respool.io/A200008"}, {"effect", "NoSchedule"}}})}}}};
    must(c.patch(kube::resources::nodes, "", name, kube::PatchType::Merge, claim), "loop claim");
    Json admitted = {{"spec",
                      {{"taints", Json::array({{{"key", "respool.io/pool"},
                                                {"value", "big"},
                                                {"effect", "NoSchedule"}}})}}}};
    must(c.patch(kube::resources::nodes, "", name, kube::PatchType::Merge, admitted), "loop admit");
    ++done;
  }
  const double loop_s = std::chrono::duration<double>(Steady::now() - loop_start).count();

  std::printf("round: registered %d nodes in %.1f s\n", free_nodes, register_s);
  std::printf(
      "  operator: %.2f s to Running, %llu writes (%llu node patches, %llu DaemonSets, %llu "
      "events)\n",
      operator_s, static_cast<unsigned long long>(total),
      static_cast<unsigned long long>(node_writes), static_cast<unsigned long long>(daemonsets),
      static_cast<unsigned long long>(events));
  std::printf("  writes by verb and resource:");
  for (const auto& [key, n] : writes) {
    if (key.agent == "respool" && sandbox::is_write_verb(key.verb)) {
      std::printf(" %s %s=%llu;", key.verb.c_str(), key.resource.c_str(),
                  static_cast<unsigned long long>(n));
    }
  }
  std::printf("\n  minimal writes: %llu\n", static_cast<unsigned long long>(minimal));
  std::printf("  plain loop: %d nodes x 2 patches in %.2f s\n", done, loop_s);
  std::fflush(stdout);
  return Round{operator_s, loop_s, total, minimal};
}

}  // namespace

int main(int argc, char** argv) {
  begin("bench_pool_creation", std::chrono::minutes(30));
  const int pool_nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int free_nodes = argc > 2 ? std::atoi(argv[2]) : 5000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  std::string catalog = source("config/catalog.yaml");
  if (argc > 4) {
    if (std::string(argv[4]) != "no-plugins") die("the 4th argument can only be no-plugins");
    auto json = kube::yaml_file_to_json(catalog);
    if (!json) die(json.error());
    json->erase("plugins");
    catalog = "/tmp/bench_pool_creation_catalog.json";  // JSON is YAML
    std::ofstream(catalog) << json->dump(2);
  }
  if (pool_nodes < 1 || free_nodes < 2 * pool_nodes) die("need FREE_NODES >= 2 x POOL_NODES");
  if (rounds < 1) die("need ROUNDS >= 1");
  runtime::log::configure(runtime::log::Format::Json, runtime::log::Level::Error);
  runtime::log::open_audit("/dev/null");
  std::printf(
      "pool creation: %d nodes claimed from %d free, %d rounds, %u hardware threads, catalog %s\n",
      pool_nodes, free_nodes, rounds, std::thread::hardware_concurrency(), catalog.c_str());
  std::vector<double> times, loops, write_ratios, time_ratios;
  for (int i = 0; i < rounds; ++i) {
    phase("round " + std::to_string(i + 1));
    Round r = run_round(pool_nodes, free_nodes, catalog);
    times.push_back(r.operator_s);
    loops.push_back(r.loop_s);
    write_ratios.push_back(double(r.writes) / double(r.minimal));
    time_ratios.push_back(r.operator_s / r.loop_s);
  }
  std::printf("median of %d rounds:\n", rounds);
  std::printf("  operator: %.2f s to Running; plain loop: %.2f s\n", median(times), median(loops));
  std::printf("  writes / minimal writes: %.3f (aim <= 1.2)\n", median(write_ratios));
  std::printf("  time / plain loop's time: %.2f (aim <= 2)\n", median(time_ratios));
  completed();
  return 0;
}
