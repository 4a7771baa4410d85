// The node agent's cost in a quiet cluster (issue 26): NODES healthy simulated GPU nodes (8 GPUs
// each, through the test NVML library), one respool-node-agent each, for a simulated hour on a
// scaled clock against the sandbox. Prints the agents' writes per node-hour (H14: at most one
// heartbeat per node per heartbeat period, nothing else once the conditions are written), then
// one real respool-node-agent process's CPU seconds per hour and peak RSS, measured over
// SECONDS of real time at a fast check period and scaled to the default one (30 s).
// Usage: bench_node_agent [NODES [MINUTES [SPEEDUP [SECONDS]]]]   (default 50 60 60 20)

#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_loop.hpp"
#include "bench/harness.hpp"
#include "operator/kube/client.hpp"
#include "operator/runtime/log.hpp"
#include "sandbox/sandbox.hpp"

extern char** environ;

namespace {

using namespace respool;
using bench::die;
using bench::phase;

// Eight healthy GPUs (every node reads the same file: the readings are the same on each).
std::string write_readings(const std::filesystem::path& dir) {
  std::string devices;
  for (int i = 0; i < 8; ++i) {
    devices += std::string(i ? "," : "") + R"({"uuid": "GPU-)" + std::to_string(i) +
               R"(", "name": "NVIDIA H100 80GB HBM3", "eccVolatileUncorrected": 0,
      "eccVolatileCorrected": 0, "registerFileVolatileUncorrected": 0,
      "sramAggregateUncorrected": 0, "retiredPagesSingleBit": 0, "retiredPagesDoubleBit": 0,
      "retirementPending": false, "remappedRows": {"failed": false}, "powerMilliwatts": 70000,
      "temperatureCelsius": 31, "utilization": {"gpu": 0, "memory": 0}})";
  }
  std::filesystem::create_directories(dir / "host/proc/1");
  std::ofstream(dir / "host/proc/1/mountinfo") << "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";
  std::ofstream(dir / "nvml.json")
      << R"({"driverVersion": "550.54.15", "devices": [)" << devices << "]}";
  return (dir / "nvml.json").string();
}

// The simulator's free nodes (the text of a nodes file, sandbox/README.md): g-1 ... g-N.
std::string nodes_yaml(int nodes) {
  return "nodes:\n- {flavor: gpu-8x-h100, zone: az-1, count: " + std::to_string(nodes) +
         ", namePrefix: g, capacity: {cpu: \"96\", memory: 1Ti, pods: \"110\", "
         "nvidia.com/gpu: \"8\"}}\n";
}

// One in-process agent: the binary's loop, reporter and checker on the bench's clock.
struct InProcessAgent {
  std::unique_ptr<kube::Client> client;
  std::unique_ptr<agent::Checker> checker;
  std::unique_ptr<agent::NodeReporter> reporter;
  std::unique_ptr<agent::AgentLoop> loop;
  std::thread thread;
};

std::uint64_t agent_writes(sandbox::RequestCounts& counts, std::uint64_t* heartbeat_patches) {
  std::uint64_t all = 0;
  for (const auto& [key, n] : counts.snapshot()) {
    if (key.agent != "respool-node-agent" || !sandbox::is_write_verb(key.verb)) continue;
    all += n;
    if (key.verb == "patch" && key.resource == "nodes/status") *heartbeat_patches += n;
  }
  return all;
}

struct Fleet {
  std::vector<std::unique_ptr<InProcessAgent>> agents;
  runtime::Registry registry;
  agent::AgentMetrics metrics{registry};
};

void start_agents(Fleet& fleet, sandbox::Sandbox& sb, runtime::ScaledClock& clock, int nodes,
                  const std::filesystem::path& dir) {
  agent::CheckerOptions checks;
  checks.nvml_library = RESPOOL_FAKE_NVML;
  checks.host_root = dir / "host";
  checks.enabled = {agent::Family::Gpu, agent::Family::KubeletDirectory};
  checks.watch_xids = false;  // a thread per agent waiting on an event set that never fires
  kube::ClientOptions client_options;
  client_options.user_agent = "respool-node-agent/" RESPOOL_VERSION;
  for (int i = 0; i < nodes; ++i) {
    auto a = std::make_unique<InProcessAgent>();
    auto client = kube::Client::create(sb.cluster_config(), client_options);
    if (!client) die(client.error().describe());
    a->client = std::move(*client);
    const std::string node = "g-" + std::to_string(i + 1);
    a->checker = std::make_unique<agent::Checker>(checks, clock);
    a->reporter = std::make_unique<agent::NodeReporter>(*a->client, node, nullptr, clock,
                                                        std::chrono::minutes(5));
    a->loop =
        std::make_unique<agent::AgentLoop>(*a->checker, *a->reporter, fleet.metrics, std::nullopt,
                                           clock, agent::LoopOptions{std::chrono::seconds(30)});
    a->thread = std::thread([loop = a->loop.get()] { loop->run(); });
    fleet.agents.push_back(std::move(a));
  }
}

void stop_agents(Fleet& fleet) {
  for (auto& a : fleet.agents)
    a->loop->stop();
  for (auto& a : fleet.agents)
    a->thread.join();
}

// Writes per node-hour over a quiet simulated hour, once every agent has written its
// conditions.
void quiet_hour(int nodes, int minutes, double speedup, const std::filesystem::path& dir) {
  runtime::ScaledClock clock(speedup);
  phase("starting the sandbox");
  sandbox::SandboxOptions so;
  so.clock = &clock;
  so.nodes_yaml = nodes_yaml(nodes);
  auto sb = sandbox::Sandbox::start(so);
  if (!sb) die(sb.error());
  auto& counts = (*sb)->api_server().request_counts();
  phase("waiting for the nodes");
  auto client = bench::must(kube::Client::create((*sb)->cluster_config()), "client");
  while (bench::must(client->list(kube::resources::nodes, ""), "list")["items"].size() <
         std::size_t(nodes)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Fleet fleet;
  phase("the agents' first conditions");
  start_agents(fleet, **sb, clock, nodes, dir);
  std::uint64_t first = 0;
  while (first < std::uint64_t(nodes)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first = 0;
    agent_writes(counts, &first);
  }
  counts.reset();
  phase("a quiet simulated hour");
  const auto from = clock.now();
  clock.sleep_for(std::chrono::minutes(minutes));
  const double simulated_h = std::chrono::duration<double>(clock.now() - from).count() / 3600;
  stop_agents(fleet);
  std::uint64_t heartbeats = 0;
  const auto writes = agent_writes(counts, &heartbeats);
  const double per_node_hour = double(writes) / nodes / simulated_h;
  std::printf(
      "quiet hour: %d nodes x 8 GPUs, %.2f simulated h (x%.0f): %llu agent writes "
      "(%llu nodes/status patches), %.2f writes per node-hour; bound: 12 (one heartbeat "
      "per 5 min)\n",
      nodes, simulated_h, speedup, (unsigned long long)writes, (unsigned long long)heartbeats,
      per_node_hour);
  if (per_node_hour > 12.0 * 1.05 || writes != heartbeats) {
    die("more writes than one heartbeat per node per heartbeat period");
  }
  (*sb)->stop();
}

// CPU seconds and peak RSS of one respool-node-agent process (the binary, with the test NVML).
void one_process(int seconds, const std::filesystem::path& dir) {
  phase("one agent process");
  runtime::ScaledClock clock(1.0);
  sandbox::SandboxOptions so;
  so.nodes_yaml = nodes_yaml(1);
  auto sb = sandbox::Sandbox::start(so);
  if (!sb) die(sb.error());
  const std::string kubeconfig = (*sb)->kubeconfig_path().string();
  const std::string host = (dir / "host").string(), state = (dir / "state").string();
  std::vector<std::string> args{RESPOOL_NODE_AGENT,
                                "--kubeconfig",
                                kubeconfig,
                                "--node-name",
                                "g-1",
                                "--nvml-library",
                                RESPOOL_FAKE_NVML,
                                "--host-root",
                                host,
                                "--checks",
                                "gpu,infiniband,kubelet-directory",
                                "--check-period",
                                "1s",
                                "--state-dir",
                                state,
                                "--metrics-bind-address",
                                "0",
                                "--health-probe-bind-address",
                                "0",
                                "--log-level",
                                "error"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) die("spawn");
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  long peak_kib = 0;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) peak_kib = std::stol(line.substr(6));
  }
  kill(pid, SIGTERM);
  int code = 0;
  struct rusage usage {};
  wait4(pid, &code, 0, &usage);
  const double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                     (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  const double per_check = cpu / seconds;  // one check a second
  std::printf(
      "one agent process: %.3f CPU s over %d checks (8 GPUs, InfiniBand, kubelet "
      "directory), %.4f CPU s a check; at the default 30 s period %.2f CPU s an hour "
      "(%.3f a minute); peak RSS %.1f MiB\n",
      cpu, seconds, per_check, per_check * 120, per_check * 2, peak_kib / 1024.0);
  (*sb)->stop();
}

}  // namespace

int main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 50;
  const int minutes = argc > 2 ? std::atoi(argv[2]) : 60;
  const double speedup = argc > 3 ? std::atof(argv[3]) : 60;
  const int seconds = argc > 4 ? std::atoi(argv[4]) : 20;
  bench::begin("bench_node_agent",
               std::chrono::seconds(minutes * 60 / int(speedup) + seconds + 300));
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  const auto dir =
      std::filesystem::temp_directory_path() / ("bench-node-agent-" + std::to_string(::getpid()));
  setenv("RESPOOL_FAKE_NVML_FILE", write_readings(dir).c_str(), 1);
  quiet_hour(nodes, minutes, speedup, dir);
  one_process(seconds, dir);
  std::filesystem::remove_all(dir);
  bench::completed();
  return 0;
}
