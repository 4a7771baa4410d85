// Automatic remediation in the sandbox, the whole operator in one process over real HTTPS, on a
// simulated clock: a pool of NODES cpu-64c nodes with spec.remediation (A050101 lasting 30 s:
// Replace), FAULTY of its nodes isolated at once, as many idle nodes ready to replace them.
// - the simulated time from a fault's `after` (its first sight plus 30 s) to its replacement
//   Available (the automatic NodeOperation Succeeded: the old node retired, the new one
//   admitted), each fault, median and worst: N2's 5% at a time makes the later ones wait;
// - the operator's API writes per automatic remediation, by verb and resource, against the
//   minimal: a replacement's 9 (bench_node_operations), the NodeOperation's create, and
//   status.remediation once when the node leaves the pool = 11, plus the pool's two
//   status.remediation writes shared by all (the faults first seen, the operations started).
//
//   build/bench/bench_remediation [NODES [FAULTY [SCALE]]] 2>/dev/null   (default 100 10 10)
//
// SCALE is simulated seconds per real second.

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

int main(int argc, char** argv) {
  begin("bench_remediation", std::chrono::minutes(20));
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 100;
  const int faulty = argc > 2 ? std::atoi(argv[2]) : 10;
  const double scale = argc > 3 ? std::atof(argv[3]) : 10.0;
  if (nodes < 2 || faulty < 1 || faulty * 5 > nodes || scale <= 0)
    die("NODES >= 2, FAULTY 1 to NODES/5 (maxUnhealthy 20%), SCALE > 0");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  runtime::ScaledClock clock(scale);
  Bench bench("nodes:\n- {flavor: cpu-64c, zone: az-1, count: " + std::to_string(nodes + faulty) +
                  ", namePrefix: n-, capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n",
              clock, static_cast<std::size_t>(nodes + faulty));
  kube::Client& c = bench.client();
  auto& counts = bench.counts();
  bench.start_operator();
  must(c.create(kube::resources::networks, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "Network"},
                     {"metadata", {{"name", "net-a"}}},
                     {"spec", Json::object()}}),
       "create network");
  Json remediation = {
      {"rules", {{{"codes", {"A050101"}}, {"after", "30s"}, {"steps", {{{"action", "Replace"}}}}}}},
      {"maxUnhealthy", "20%"}};
  must(c.create(kube::resources::resourcepools, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "ResourcePool"},
                     {"metadata", {{"name", "p"}}},
                     {"spec",
                      {{"network", "net-a"},
                       {"jobTypes", Json::array({"Training"})},
                       {"resources", Json::array({{{"flavor", "cpu-64c"}, {"count", nodes}}})},
                       {"remediation", remediation}}}}),
       "create pool");
  bench.wait_for_phase(kube::resources::resourcepools, "p", "Running");
  settle(counts, std::chrono::milliseconds(1500));

  kube::ListOptions in_pool;
  in_pool.label_selector = "respool.io/pool=p";
  std::vector<std::string> members;
  const Json listed = must(c.list(kube::resources::nodes, "", in_pool), "list pool");
  for (const auto& n : listed["items"])
    members.push_back(n["metadata"]["name"]);
  std::sort(members.begin(), members.end());
  counts.reset();
  phase("isolating " + std::to_string(faulty) + " nodes");
  std::map<std::string, runtime::TimePoint> due;  // operation name -> the fault's `after`
  for (int i = 0; i < faulty; ++i) {
    const std::string& node = members[static_cast<std::size_t>(i) * 3];
    Json patch = {
        {"metadata", {{"annotations", {{"sandbox.respool.io/fault", "Isolate=A050101"}}}}}};
    must(c.patch(kube::resources::nodes, "", node, kube::PatchType::Merge, patch), "isolate node");
    due["auto-" + node + "-a050101-1-1"] = clock.now() + std::chrono::seconds(30);
  }
  phase("waiting for the automatic replacements");
  kube::ListOptions automatic;
  automatic.label_selector = "respool.io/remediation=auto";
  std::map<std::string, double> took;  // simulated seconds from `after` to Succeeded
  const auto deadline = Steady::now() + std::chrono::minutes(10);
  while (took.size() < due.size()) {
    if (Steady::now() > deadline) die("the replacements did not all succeed");
    const Json ops =
        must(c.list(kube::resources::nodeoperations, "", automatic), "list operations");
    for (const auto& op : ops["items"]) {
      const std::string name = op["metadata"]["name"];
      if (took.contains(name) ||
          op.value("status", Json::object()).value("phase", "") != "Succeeded")
        continue;
      auto it = due.find(name);
      if (it == due.end()) die("an automatic operation nobody expected: " + name);
      took[name] = std::chrono::duration<double>(clock.now() - it->second).count();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  settle(counts, std::chrono::milliseconds(2000));
  std::vector<double> seconds;
  for (const auto& [name, s] : took)
    seconds.push_back(s);
  const WriteSummary w = summarize_writes(counts);
  const double minimal = 11.0 * faulty + 2.0;
  std::printf(
      "%d faulty of %d nodes (scale %.0f): from `after` to the replacement Available, "
      "median %.1f s, worst %.1f s simulated\n",
      faulty, nodes, scale, median(seconds), *std::max_element(seconds.begin(), seconds.end()));
  std::printf(
      "writes: %llu for %d remediations, %.1f each; minimal %.0f (%.1f each), ratio %.2f; "
      "%llu events:%s\n",
      static_cast<unsigned long long>(w.writes), faulty, double(w.writes) / faulty, minimal,
      minimal / faulty, double(w.writes) / minimal, static_cast<unsigned long long>(w.events),
      w.detail.c_str());
  completed();
  return 0;
}
