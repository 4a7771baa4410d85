// Driver upgrades in the sandbox, the whole operator in one process over real HTTPS: a 100-node
// GPU pool upgrades its driver in batches of 10 (maxUnavailable: 10%), Secure, no job running,
// each round to the other version (550.54.15, back to 535.104.05, ...).
// - the time from the spec's change to every node at the target, upgrade-done and uncordoned,
//   in real seconds and in the sandbox's simulated time (simulated time runs SCALE times faster;
//   each batch waits for the simulated driver to load: 10 simulated seconds);
// - the operator's API writes, by verb and resource, against the minimal count: per node one
//   patch that cordons and taints it (D4), the deletion of its driver pod, and one patch that
//   uncordons and untaints it = 3 per node; the pool's status twice (Upgrading, then done).
//   Events are counted apart.
//
//   build/bench/bench_driver_upgrade [ROUNDS [SCALE]] 2>/dev/null
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

namespace {

constexpr int kNodes = 100;
const std::string kVersions[] = {"535.104.05", "550.54.15"};

// Every pool node at `version`, upgrade-done and schedulable.
bool upgraded(kube::Client& c, const std::string& version) {
  kube::ListOptions in_pool;
  in_pool.label_selector = "respool.io/pool=p";
  auto nodes = c.list(kube::resources::nodes, "", in_pool);
  if (!nodes || (*nodes)["items"].size() != std::size_t(kNodes)) return false;
  for (const auto& n : (*nodes)["items"]) {
    const Json labels = n["metadata"].value("labels", Json::object());
    if (labels.value("respool.io/driver-version", "") != version ||
        labels.value("respool.io/driver-upgrade-state", "") != "upgrade-done" ||
        n["spec"].value("unschedulable", false))
      return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  begin("bench_driver_upgrade", std::chrono::minutes(30));
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  const double scale = argc > 2 ? std::atof(argv[2]) : 10.0;
  if (rounds < 1 || rounds > 9) die("ROUNDS: 1 to 9");
  if (!(scale >= 1 && scale <= 100)) die("SCALE: 1 to 100");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  runtime::ScaledClock clock(scale);
  Bench b("nodes:\n- {flavor: gpu-8x-a100, zone: az-1, count: " + std::to_string(kNodes) +
              ", namePrefix: g, driverVersion: \"" + kVersions[0] +
              "\", capacity: {cpu: \"96\", memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"}}\n",
          clock, kNodes);
  b.start_operator();
  kube::Client& c = b.client();
  must(c.create(kube::resources::networks, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "Network"},
                     {"metadata", {{"name", "net-a"}}},
                     {"spec", Json::object()}}),
       "create network");
  Json driver = {{"gpuVersion", kVersions[0]},
                 {"upgrade", {{"mode", "Secure"}, {"maxUnavailable", "10%"}}}};
  must(c.create(kube::resources::resourcepools, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "ResourcePool"},
                     {"metadata", {{"name", "p"}}},
                     {"spec",
                      {{"network", "net-a"},
                       {"jobTypes", Json::array({"Training"})},
                       {"resources", Json::array({{{"flavor", "gpu-8x-a100"}, {"count", kNodes}}})},
                       {"driver", driver}}}}),
       "create pool");
  b.wait_for_phase(kube::resources::resourcepools, "p", "Running", std::chrono::minutes(5));
  settle(b.counts(), std::chrono::milliseconds(1500));

  const std::uint64_t minimal = 3 * kNodes + 2;
  std::vector<double> seconds, write_counts, event_counts;
  for (int r = 0; r < rounds; ++r) {
    const std::string& target = kVersions[(r + 1) % 2];
    b.counts().reset();
    const auto start = Steady::now();
    const auto sim_start = clock.now();
    must(c.patch(kube::resources::resourcepools, "", "p", kube::PatchType::Merge,
                 Json{{"spec", {{"driver", {{"gpuVersion", target}}}}}}),
         "change the driver version");
    phase("round " + std::to_string(r + 1) + ": upgrading to " + target);
    const auto deadline = Steady::now() + std::chrono::minutes(10);
    while (!upgraded(c, target)) {
      if (Steady::now() > deadline) die("round " + std::to_string(r) + " never finished");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const double s = std::chrono::duration<double>(Steady::now() - start).count();
    const double sim = std::chrono::duration<double>(clock.now() - sim_start).count();
    b.wait_for_phase(kube::resources::resourcepools, "p", "Running");
    settle(b.counts(), std::chrono::milliseconds(1500));  // the pool's last status, events
    const WriteSummary w = summarize_writes(b.counts());
    const std::uint64_t total = w.writes, events = w.events;
    const std::string& detail = w.detail;
    seconds.push_back(s);
    write_counts.push_back(double(total));
    event_counts.push_back(double(events));
    std::printf(
        "upgrade %d to %s: %.2f s (%.0f simulated s), %llu writes (minimal %llu), %llu "
        "events:%s\n",
        r, target.c_str(), s, sim, static_cast<unsigned long long>(total),
        static_cast<unsigned long long>(minimal), static_cast<unsigned long long>(events),
        detail.c_str());
  }
  std::printf(
      "median of %d: %.2f s to upgrade %d nodes in batches of 10 (time scale %.0f); %.0f writes, "
      "%.2f per node, ratio %.2f against %llu minimal; %.0f events\n",
      rounds, median(seconds), kNodes, scale, median(write_counts), median(write_counts) / kNodes,
      median(write_counts) / double(minimal), static_cast<unsigned long long>(minimal),
      median(event_counts));
  completed();
  return 0;
}
