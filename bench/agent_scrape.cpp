// The node agent's /metrics with its usage metrics (issue 28): GPUS GPUs (through the test NVML
// library, via the agent's real dlopen path) running PROCESSES processes, each a Job worker's
// container found through its cgroup in a made-up host tree and the node's pods. After one
// period's readings are exported as the agent exports them, SCRAPES HTTP GETs of /metrics (the
// agent's own endpoint server, over loopback) print the median and 99th-percentile scrape time
// and the body's size and series count; then the process's resident memory (VmRSS, VmHWM) with
// everything held, which is an in-process agent's: the NVML reader, the metrics, the pods.
// Usage: bench_agent_scrape [GPUS [PROCESSES [SCRAPES]]]   (default 8 64 200)

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agent_metrics.hpp"
#include "agent/host/host_readers.hpp"
#include "agent/nvml/nvml_reader.hpp"
#include "agent/usage_metrics.hpp"
#include "bench/harness.hpp"
#include "operator/server/endpoints.hpp"

namespace {

using namespace respool;
using bench::die;
using bench::phase;
using Json = nlohmann::json;

std::string hex_id(int n) {
  auto s = std::to_string(n);
  return std::string(64 - s.size(), 'a') + s;
}

std::string uid(int n) {
  auto s = std::to_string(n);
  return "6f1c2a3b-1111-2222-3333-" + std::string(12 - s.size(), '0') + s;
}

// Process p (pid 10000+p) runs on GPU p % gpus, in worker p of Job "llm-<p / 8>".
struct Node {
  std::filesystem::path dir;
  std::map<std::string, Json, std::less<>> pods;  // by UID, as the agent's pod cache indexes them

  Node(int gpus, int processes)
      : dir(std::filesystem::temp_directory_path() /
            ("bench-agent-scrape-" + std::to_string(::getpid()))) {
    Json devices = Json::array();
    for (int g = 0; g < gpus; ++g) {
      devices.push_back({{"uuid", "GPU-" + std::to_string(g)},
                         {"name", "NVIDIA H100 80GB HBM3"},
                         {"utilization", {{"gpu", 90}, {"memory", 40}}},
                         {"memory", {{"total", 80ull << 30}, {"used", 60ull << 30}}},
                         {"processes", Json::array()}});
    }
    for (int p = 0; p < processes; ++p) {
      const int pid = 10000 + p;
      devices[std::size_t(p % gpus)]["processes"].push_back(
          {{"pid", pid}, {"usedGpuMemory", 7ull << 30}, {"smUtil", p % 100}, {"memUtil", 30}});
      write_cgroup(pid, uid(p), hex_id(p));
      pods.emplace(uid(p), pod(p));
    }
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "nvml.json") << Json{{"driverVersion", "550.54.15"}, {"devices", devices}};
    for (int port = 1; port <= 8; ++port) {
      auto ports = dir / "host/sys/class/infiniband" / ("mlx5_" + std::to_string(port)) / "ports/1";
      std::filesystem::create_directories(ports / "counters");
      std::ofstream(ports / "state") << "4: ACTIVE\n";
      std::ofstream(ports / "counters/port_rcv_data") << 123456789 << "\n";
      std::ofstream(ports / "counters/port_xmit_data") << 987654321 << "\n";
    }
  }
  ~Node() { std::filesystem::remove_all(dir); }

  void write_cgroup(int pid, const std::string& pod_uid, const std::string& id) const {
    auto proc = dir / "host/proc" / std::to_string(pid);
    std::filesystem::create_directories(proc);
    std::string underscored = pod_uid;
    for (auto& c : underscored)
      if (c == '-') c = '_';
    std::ofstream(proc / "cgroup") << "0::/kubepods.slice/kubepods-burstable.slice/"
                                      "kubepods-burstable-pod"
                                   << underscored << ".slice/cri-containerd-" << id << ".scope\n";
  }

  static Json pod(int p) {
    const auto job = "llm-" + std::to_string(p / 8), index = std::to_string(p % 8);
    return {{"metadata",
             {{"name", job + "-" + index + "-abcde"},
              {"namespace", "training"},
              {"uid", uid(p)},
              {"labels",
               {{"batch.kubernetes.io/job-name", job},
                {"batch.kubernetes.io/job-completion-index", index}}}}},
            {"status",
             {{"containerStatuses",
               {{{"name", "train"}, {"containerID", "containerd://" + hex_id(p)}}}}}}};
  }

  agent::usage::PodLookup lookup() const {
    return [this](std::string_view wanted) -> std::optional<agent::usage::PodInfo> {
      auto it = pods.find(wanted);
      if (it == pods.end()) return std::nullopt;
      return agent::usage::pod_info_from_json(it->second);
    };
  }
};

// One HTTP/1.1 GET of /metrics on loopback; the response's size.
std::size_t scrape(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    die("cannot connect to /metrics");
  }
  const std::string request =
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (::write(fd, request.data(), request.size()) != ssize_t(request.size())) die("write");
  std::size_t total = 0;
  char buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    total += std::size_t(n);
  ::close(fd);
  return total;
}

long status_kib(const char* field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  }
  return 0;
}

// SCRAPES GETs of /metrics served by the agent's endpoint server: each one's time in ms.
std::vector<double> scrape_times(runtime::Registry& registry, int scrapes, std::size_t& bytes) {
  server::EndpointsOptions options;
  options.metrics_bind_address = "127.0.0.1:0";
  options.health_probe_bind_address = "0";
  auto served = server::Endpoints::start(options, registry);
  if (!served) die(served.error());
  std::vector<double> ms;
  for (int i = 0; i < scrapes; ++i) {
    const auto start = bench::Steady::now();
    bytes = scrape((*served)->metrics_port());
    ms.push_back(std::chrono::duration<double, std::milli>(bench::Steady::now() - start).count());
  }
  (*served)->stop();
  std::sort(ms.begin(), ms.end());
  return ms;
}

int count_series(const std::string& body, const std::string& name) {
  int n = 0;
  for (std::size_t at = 0; (at = body.find("\n" + name + "{", at)) != std::string::npos; ++at)
    ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const int gpus = argc > 1 ? std::atoi(argv[1]) : 8;
  const int processes = argc > 2 ? std::atoi(argv[2]) : 64;
  const int scrapes = argc > 3 ? std::atoi(argv[3]) : 200;
  bench::begin("bench_agent_scrape", std::chrono::seconds(120));
  phase("writing the node");
  Node node(gpus, processes);
  setenv("RESPOOL_FAKE_NVML_FILE", (node.dir / "nvml.json").c_str(), 1);
  phase("one period's readings");
  agent::NvmlReader reader(RESPOOL_FAKE_NVML, std::chrono::seconds(5), runtime::real_clock(),
                           false);
  runtime::Registry registry;
  agent::AgentMetrics health(registry);
  agent::UsageMetrics usage(
      registry,
      [root = node.dir / "host"](unsigned int pid) {
        return agent::read_process_cgroup(root, pid);
      },
      node.lookup());
  agent::PeriodResult period;
  period.readings.gpu = reader.read();
  period.readings.infiniband = agent::read_infiniband(node.dir / "host");
  if (period.readings.gpu.devices.size() != std::size_t(gpus)) die("the test NVML read no GPUs");
  health.observe(period);
  const auto observe_start = bench::Steady::now();
  usage.observe(period.readings, {"pool-a", "g-1"});
  const double observe_ms =
      std::chrono::duration<double, std::milli>(bench::Steady::now() - observe_start).count();
  const int containers = count_series(registry.render(), "ma_container_gpu_util");
  if (containers != processes) die("expected one container series per process");
  phase("scraping /metrics");
  std::size_t bytes = 0;
  const auto ms = scrape_times(registry, scrapes, bytes);
  std::printf(
      "agent /metrics: %d GPUs, %d processes (%d container series each metric), %zu bytes a "
      "scrape; %d scrapes: median %.3f ms, p99 %.3f ms; one period's usage export %.3f ms\n",
      gpus, processes, containers, bytes, scrapes, bench::median(ms),
      ms[std::min(ms.size() - 1, std::size_t(double(ms.size()) * 0.99))], observe_ms);
  std::printf(
      "agent memory: VmRSS %.1f MiB, VmHWM %.1f MiB (the bench process: NVML reader, "
      "metrics, %d pods, endpoint server)\n",
      status_kib("VmRSS:") / 1024.0, status_kib("VmHWM:") / 1024.0, processes);
  bench::completed();
  return 0;
}
