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

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

namespace {

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
  begin("bench_node_operations", std::chrono::minutes(20));
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (rounds < 1 || rounds > 8) die("ROUNDS: 1 to 8 (N1: 8 replacements a day in a 40-node pool)");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  runtime::ScaledClock clock(1.0);
  Bench bench(
      "nodes:\n- {flavor: cpu-64c, zone: az-1, count: 50, namePrefix: n-, capacity: "
      "{cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n",
      clock, 50);
  kube::Client& c = bench.client();
  auto& counts = bench.counts();
  for (const auto& node : must(c.list(kube::resources::nodes, ""), "list nodes")["items"]) {
    // Resets take a simulated second.
    Json patch = {{"metadata", {{"annotations", {{"sandbox.respool.io/reset-seconds", "1"}}}}}};
    must(c.patch(kube::resources::nodes, "", node["metadata"]["name"].get<std::string>(),
                 kube::PatchType::Merge, patch),
         "annotate node");
  }
  bench.start_operator();
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
  bench.wait_for_phase(kube::resources::resourcepools, "p", "Running");
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
    bench.wait_for_phase(kube::resources::nodeoperations, name, "Succeeded");
    const double s = std::chrono::duration<double>(Steady::now() - start).count();
    settle(counts, std::chrono::milliseconds(1500));  // the ledger's release comes after
    const WriteSummary w = summarize_writes(counts);
    const std::uint64_t total = w.writes, events = w.events;
    const std::string& detail = w.detail;
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
    bench.wait_for_phase(kube::resources::nodeoperations, name, "Succeeded");
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
  completed();
  return 0;
}
