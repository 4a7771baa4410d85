// respool-soak: every operation at once under crashes and API faults (issue 30). A sandbox in
// process with 50 free nodes; two respool-operator processes with leader election; for
// --duration a seeded schedule of pool creations, resizes and deletions, Replace, Reset and
// Delete NodeOperations, driver upgrades, fault-tolerant training Jobs and node faults, while
// replicas are SIGKILLed (mostly the leader) and the API server answers 429, 500 and 409,
// slows down and drops or expires watches. The invariants (invariants.hpp, leadership.hpp) are
// checked four times a second from the soak's own watches; then everything must end, every
// mark of respool's on a node must have its record, every node added to or removed from a
// pool its audit record, every audit record a Lease term of its writer, the soak's watches
// the server's state, and a fresh operator must find nothing to do. Any breach fails the run
// and prints the seed that replays its schedule.
// Usage: respool-soak [--duration 3m] [--seed N] [--work DIR] [--settle 240s] [--max-pools 4]
//                     [--operator PATH] (another respool-operator build: scripts/soak-mutant.sh)

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "apimachinery/duration.hpp"
#include "operator/kube/client.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/log.hpp"
#include "sandbox/sandbox.hpp"
#include "test/soak/chaos.hpp"
#include "test/soak/monitor.hpp"
#include "test/soak/replicas.hpp"
#include "test/soak/settle.hpp"
#include "test/soak/workload.hpp"

using namespace respool;
using namespace respool::soak;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::chrono::nanoseconds duration = 3min;
  std::chrono::nanoseconds settle = 240s;
  std::uint64_t seed = std::random_device{}();
  fs::path work;
  int max_pools = 4;
  fs::path operator_binary = fs::path(RESPOOL_BINARY_DIR) / "respool-operator";
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "respool-soak: %s\nusage: respool-soak [--duration 3m] [--seed N] "
               "[--work DIR] [--settle 240s] [--max-pools N] [--operator PATH]\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--duration" || arg == "--settle") {
      auto d = apimachinery::parse_duration(value);
      if (!d || *d <= 0ns) usage(arg + ": " + (d ? "must be positive" : d.error()));
      (arg == "--duration" ? o.duration : o.settle) = *d;
    } else if (arg == "--seed") {
      o.seed = std::stoull(value);
    } else if (arg == "--work") {
      o.work = value;
    } else if (arg == "--max-pools") {
      o.max_pools = std::stoi(value);
    } else if (arg == "--operator") {
      o.operator_binary = value;
      if (!fs::is_regular_file(o.operator_binary)) usage("--operator: no file " + value);
    } else {
      usage("unknown flag " + arg);
    }
  }
  if (o.work.empty())
    o.work = fs::temp_directory_path() / ("respool-soak-" + std::to_string(::getpid()));
  fs::create_directories(o.work);
  return o;
}

// 50 free nodes: A100s in two zones, H100s, NPUs and CPU nodes, drivers at the first version.
const char* kNodes = R"(
flavorLabel: node.kubernetes.io/instance-type
zoneLabel: topology.kubernetes.io/zone
nodes:
- {flavor: gpu-8x-a100, zone: az-1, count: 12, namePrefix: a100-az1, driverVersion: "535.104.05",
   capacity: {cpu: "96", memory: 1152Gi, pods: "110", nvidia.com/gpu: "8"}}
- {flavor: gpu-8x-a100, zone: az-2, count: 12, namePrefix: a100-az2, driverVersion: "535.104.05",
   capacity: {cpu: "96", memory: 1152Gi, pods: "110", nvidia.com/gpu: "8"}}
- {flavor: gpu-8x-h100, zone: az-1, count: 8, namePrefix: h100, driverVersion: "535.104.05",
   capacity: {cpu: "96", memory: 2048Gi, pods: "110", nvidia.com/gpu: "8"}}
- {flavor: npu-8x-910b, zone: az-1, count: 6, namePrefix: npu, driverVersion: "23.0.6",
   capacity: {cpu: "192", memory: 1536Gi, pods: "110", huawei.com/Ascend910: "8"}}
- {flavor: cpu-64c, zone: az-1, count: 12, namePrefix: cpu,
   capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
)";
constexpr std::size_t kNodeCount = 50;

void install_api(kube::Client& client) {
  for (const auto& entry : fs::directory_iterator(fs::path(RESPOOL_SOURCE_DIR) / "crds")) {
    if (entry.path().extension() != ".yaml") continue;
    auto crd = kube::yaml_file_to_json(entry.path().string());
    if (!crd) throw std::runtime_error(crd.error());
    if (!client.create(kube::resources::customresourcedefinitions, "", *crd))
      throw std::runtime_error("cannot install " + entry.path().string());
  }
  (void)client.create(
      kube::resources::namespaces, "",
      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "respool-system"}}}});
}

void print_counts(const char* title, const std::map<std::string, int>& counts) {
  std::printf("  %s:", title);
  int total = 0;
  for (const auto& [what, n] : counts) {
    std::printf(" %s %d;", what.c_str(), n);
    total += n;
  }
  std::printf(" (%d)\n", total);
}

// The shipped catalog, but half of a pool may be replaced a day: with the pools' few nodes the
// documents' 20% would allow one replacement a day and no two at once, so N2 would never bind.
const Shares kShares{0.50, 0.05};

fs::path soak_catalog(const fs::path& work) {
  std::ifstream in(fs::path(RESPOOL_SOURCE_DIR) / "config/catalog.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string catalog = text.str();
  const std::string shipped = "replacementsPerDay: 20%";
  const auto at = catalog.find(shipped);
  if (at == std::string::npos) throw std::runtime_error("config/catalog.yaml has no " + shipped);
  catalog.replace(at, shipped.size(), "replacementsPerDay: 50%");
  const fs::path out = work / "catalog.yaml";
  std::ofstream(out) << catalog;
  return out;
}

std::string leader_of(const Monitor& monitor) {
  const auto terms = monitor.lease_history().terms();
  return terms.empty() ? "" : terms.back().holder;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  // The sandbox in this process logs as the operator does: only what goes wrong here.
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Warn);
  std::printf(
      "respool-soak: seed %llu, %lld s, work %s\n", static_cast<unsigned long long>(o.seed),
      static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(o.duration).count()),
      o.work.c_str());
  std::fflush(stdout);
  try {
    Rng rng(o.seed);
    sandbox::SandboxOptions so;
    so.nodes_yaml = kNodes;
    so.api.state_dir = o.work / "sandbox";
    auto sandbox = sandbox::Sandbox::start(so);
    if (!sandbox) throw std::runtime_error(sandbox.error());
    kube::ClientOptions co;
    co.user_agent = "soak/" RESPOOL_VERSION;
    auto client = kube::Client::create((*sandbox)->cluster_config(), co);
    if (!client) throw std::runtime_error(client.error().describe());
    install_api(**client);
    Monitor monitor(**client, kShares, "respool-system", "respool-operator-leader");
    monitor.start();
    wait_for_nodes(monitor, kNodeCount);

    ReplicaOptions ro;
    ro.binary = o.operator_binary;
    ro.kubeconfig = (*sandbox)->kubeconfig_path();
    ro.catalog = soak_catalog(o.work);
    ro.dir = o.work;
    ro.args = {"--leader-elect",
               "--leader-election-namespace=respool-system",
               "--leader-election-id=respool-operator-leader",
               "--leader-election-lease-duration=4s",
               "--leader-election-renew-deadline=3s",
               "--leader-election-retry-period=500ms",
               "--namespace=respool-system",
               "--metrics-bind-address=0",
               "--health-probe-bind-address=0"};
    Replicas replicas(ro, 2);
    replicas.start(0);
    replicas.start(1);
    Workload workload(**client, rng.fork(), o.max_pools);
    workload.prepare();
    Chaos chaos(replicas, (*sandbox)->api_server().faults(), rng.fork());

    // The schedule: people's steps every 1-4 s here, chaos on its own thread.
    const auto end = std::chrono::steady_clock::now() + o.duration;
    std::atomic<bool> over{false};
    std::thread chaos_thread([&, chaos_rng = rng.fork()]() mutable {
      auto next_kill =
          std::chrono::steady_clock::now() + std::chrono::seconds(chaos_rng.between(8, 20));
      while (!over) {
        std::this_thread::sleep_for(std::chrono::milliseconds(chaos_rng.between(2000, 6000)));
        if (over) break;
        const bool kill = std::chrono::steady_clock::now() >= next_kill;
        if (kill)
          next_kill =
              std::chrono::steady_clock::now() + std::chrono::seconds(chaos_rng.between(10, 30));
        chaos.step(kill, leader_of(monitor));
      }
    });
    Rng pace = rng.fork();
    while (std::chrono::steady_clock::now() < end && monitor.breaches().empty()) {
      workload.step(monitor.snapshot());
      std::this_thread::sleep_for(std::chrono::milliseconds(pace.between(1000, 4000)));
    }
    over = true;
    chaos_thread.join();
    chaos.calm();
    workload.wind_down(monitor.snapshot());
    std::printf("respool-soak: the schedule is over (%zu checks so far); settling\n",
                monitor.checks());
    std::fflush(stdout);

    std::vector<Breach> breaches = monitor.breaches();
    if (breaches.empty()) {
      auto ended = settle_and_end(monitor, **client, replicas, o.settle);
      breaches.insert(breaches.end(), ended.begin(), ended.end());
    }
    if (breaches.empty()) {
      auto final_checks = check_the_end(monitor, **client, replicas, (*sandbox)->api_server());
      breaches.insert(breaches.end(), final_checks.begin(), final_checks.end());
    }
    std::printf("respool-soak: seed %llu\n", static_cast<unsigned long long>(o.seed));
    print_counts("operations asked", workload.done());
    print_counts("refused by the API", workload.refused());
    auto injected = chaos.injected();
    injected["SIGKILLs in all"] = replicas.kills();
    print_counts("chaos", injected);
    std::printf("  replica runs: %zu; Lease terms: %zu; invariant checks: %zu; breaches: %zu\n",
                replicas.runs().size(), monitor.lease_history().terms().size(), monitor.checks(),
                breaches.size());
    for (const auto& b : breaches)
      std::printf("BREACH [%s] %s\n", b.rule.c_str(), b.detail.c_str());
    monitor.stop();
    replicas.stop_all();
    (*sandbox)->stop();
    if (!breaches.empty()) {
      std::printf("respool-soak: FAILED; replay with --seed %llu (logs in %s)\n",
                  static_cast<unsigned long long>(o.seed), o.work.c_str());
      return 1;
    }
    std::printf("respool-soak: passed\n");
    return 0;
  } catch (const std::exception& e) {
    std::printf("respool-soak: error: %s (seed %llu)\n", e.what(),
                static_cast<unsigned long long>(o.seed));
    return 1;
  }
}
