// The usage metrics end to end inside the agent: the test NVML library (through the agent's
// real dlopen path) reports per-process use of 8 GPUs, a made-up host tree holds the processes'
// cgroups and an InfiniBand port's counters, the pods of the node come from a lookup; /metrics
// then shows each worker's use of its GPU under the documents' names, and nothing of a
// container that went away.

#include <cstdlib>

#include <catch2/catch.hpp>

#include "agent/dcmi/dcmi_reader.hpp"
#include "agent/host/host_readers.hpp"
#include "agent/nvml/nvml_reader.hpp"
#include "agent/usage_metrics.hpp"
#include "fixtures.hpp"
#include "operator/runtime/clock.hpp"
#include "usage_fixtures.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using namespace std::chrono_literals;
using Json = nlohmann::json;

namespace {

const std::string kFakeNvml = RESPOOL_BINARY_DIR "/agent/testlibs/libnvidia-ml-fake.so";

// 8 GPUs; worker i of Job "llm" runs pid 1000+i on GPU i at 10*i+3 percent, using (i+1) GiB.
// GPU 7 also runs a host process (pid 4242).
Json readings(int workers) {
  Json devices = Json::array();
  for (int i = 0; i < 8; ++i) {
    Json processes = Json::array();
    if (i < workers) {
      processes.push_back({{"pid", 1000 + i},
                           {"usedGpuMemory", (i + 1ull) << 30},
                           {"smUtil", 10 * i + 3},
                           {"memUtil", i}});
    }
    if (i == 7) processes.push_back({{"pid", 4242}, {"usedGpuMemory", 1ull << 30}, {"smUtil", 50}});
    devices.push_back({{"uuid", "GPU-" + std::to_string(i)},
                       {"utilization", {{"gpu", 60 + i}, {"memory", 10}}},
                       {"memory", {{"total", 80ull << 30}, {"used", 20ull << 30}}},
                       {"processes", processes}});
  }
  return {{"driverVersion", "550.54.15"}, {"devices", devices}};
}

struct Node {
  TempDir host{"agent-usage"};
  TempDir nvml{"agent-usage-nvml"};
  Pods pods;
  Node() {
    for (int i = 0; i < 8; ++i) {
      pods.items.push_back(job_pod("llm", i, pod_uid(i), container_id(i)));
      host.write("proc/" + std::to_string(1000 + i) + "/cgroup",
                 cgroup_v2_systemd(pod_uid(i), container_id(i)));
    }
    host.write("proc/4242/cgroup", "0::/system.slice/host-burn.service\n");
    host.write("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
    host.write("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "1000\n");
    host.write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "250\n");
    write(readings(8));
    setenv("RESPOOL_FAKE_NVML_FILE", (nvml.path() / "nvml.json").c_str(), 1);
  }
  ~Node() { unsetenv("RESPOOL_FAKE_NVML_FILE"); }
  void write(const Json& j) const { nvml.write("nvml.json", j.dump()); }
  usage::CgroupReader cgroups() const {
    return [root = host.path()](unsigned int pid) { return read_process_cgroup(root, pid); };
  }
};

std::vector<std::string> worker(int i) {
  return {"job=\"llm\"",
          "task=\"worker-" + std::to_string(i) + "\"",
          "pool=\"p\"",
          "node=\"g-1\"",
          "namespace=\"default\"",
          "container=\"train\"",
          "gpu=\"" + std::to_string(i) + "\""};
}

}  // namespace

TEST_CASE("usage metrics: worker-3's GPU use is what the NVML library reports for its process",
          "[agent][usage][metrics]") {
  Node node;
  NvmlReader reader(kFakeNvml, 5s, respool::runtime::real_clock(), false);
  respool::runtime::Registry registry;
  UsageMetrics usage(registry, node.cgroups(), node.pods.lookup());
  PeriodReadings r;
  r.gpu = reader.read();
  r.infiniband = read_infiniband(node.host.path());
  REQUIRE(r.gpu.library == GpuReadings::Library::Loaded);
  REQUIRE(r.gpu.devices.size() == 8);
  usage.observe(r, {"p", "g-1"});
  const auto text = registry.render();

  CHECK(sample(text, "ma_container_gpu_util", worker(3)) == 33);
  CHECK(sample(text, "ma_container_gpu_mem_copy_util", worker(3)) == 3);
  CHECK(sample(text, "ma_container_gpu_memory_used_megabytes", worker(3)) == 4096);
  CHECK(sample(text, "ma_container_gpu_memory_total_megabytes", worker(3)) == 80 * 1024);
  CHECK(sample(text, "ma_container_gpu_memory_util", worker(3)) == Approx(5.0));
  CHECK(series(text, "ma_container_gpu_util") == 8);  // the host process has none
  // The node's own: GPU 7 counts the host process (its utilisation is the device's).
  CHECK(sample(text, "ma_node_gpu_util", {"gpu=\"7\"", "pool=\"p\"", "node=\"g-1\""}) == 67);
  CHECK(sample(text, "ma_node_gpu_mem_used_megabytes", {"gpu=\"7\""}) == 20 * 1024);
  CHECK(sample(text, "ma_node_gpu_memory_total_megabytes", {"gpu=\"0\""}) == 80 * 1024);
  CHECK(sample(text, "ma_node_gpu_memory_util", {"gpu=\"0\""}) == 25);
  CHECK(sample(text, "ma_node_infiniband_port_received_data_bytes_total",
               {"device=\"mlx5_0\"", "port=\"1\""}) == 4000);
  CHECK(sample(text, "ma_node_infiniband_port_transmitted_data_bytes_total",
               {"device=\"mlx5_0\""}) == 1000);
  CHECK(text.find("# TYPE ma_node_infiniband_port_received_data_bytes_total counter") !=
        std::string::npos);
}

TEST_CASE("usage metrics: a container that went away leaves no series; counters only grow",
          "[agent][usage][metrics]") {
  Node node;
  NvmlReader reader(kFakeNvml, 5s, respool::runtime::real_clock(), false);
  respool::runtime::Registry registry;
  UsageMetrics usage(registry, node.cgroups(), node.pods.lookup());
  PeriodReadings r;
  r.gpu = reader.read();
  usage.observe(r, {"p", "g-1"});
  REQUIRE(series(registry.render(), "ma_container_gpu_util") == 8);

  // Workers 6 and 7 finish: their processes leave the GPUs and their pods the node.
  node.write(readings(6));
  node.pods.items.resize(6);
  r.gpu = reader.read();
  r.infiniband = read_infiniband(node.host.path());
  usage.observe(r, {"p", "g-1"});
  auto text = registry.render();
  CHECK(series(text, "ma_container_gpu_util") == 6);
  CHECK_FALSE(sample(text, "ma_container_gpu_util", worker(6)));
  CHECK_FALSE(sample(text, "ma_container_gpu_memory_used_megabytes", worker(7)));
  CHECK(sample(text, "ma_container_gpu_util", worker(5)) == 53);

  // A port counter read lower (the HCA was reset) starts the series again, never goes negative.
  node.host.write("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "10\n");
  r.infiniband = read_infiniband(node.host.path());
  usage.observe(r, {"p", "g-1"});
  text = registry.render();
  CHECK(sample(text, "ma_node_infiniband_port_received_data_bytes_total", {"port=\"1\""}) == 40);
}

TEST_CASE("usage metrics: each NPU's AI Core and HBM use through the test DCMI library",
          "[agent][usage][metrics][npu]") {
  TempDir dir{"agent-usage-dcmi"};
  dir.write("dcmi.json", R"({"cards": [{"card": 0, "devices": [{"aiCoreUtil": 71, "hbmUtil": 40}]},
    {"card": 1, "devices": [{"health": 0}]}]})");
  setenv("RESPOOL_FAKE_DCMI_FILE", (dir.path() / "dcmi.json").c_str(), 1);
  DcmiReader reader(RESPOOL_BINARY_DIR "/agent/testlibs/libdcmi-fake.so", 5s);
  respool::runtime::Registry registry;
  UsageMetrics usage(registry, {}, {});
  PeriodReadings r;
  r.npu = reader.read();
  unsetenv("RESPOOL_FAKE_DCMI_FILE");
  REQUIRE(r.npu.devices.size() == 2);
  usage.observe(r, {"p", "n-1"});
  const auto text = registry.render();
  CHECK(sample(text, "ma_node_npu_util", {"npu=\"0/0\"", "pool=\"p\"", "node=\"n-1\""}) == 71);
  CHECK(sample(text, "ma_node_npu_memory_util", {"npu=\"0/0\""}) == 40);
  // Card 1 reports neither: not supported is no series, never a 0.
  CHECK(series(text, "ma_node_npu_util") == 1);
}

TEST_CASE("usage metrics: each container's NPU memory, and the device's use when it is alone",
          "[agent][usage][metrics][npu]") {
  TempDir host{"agent-usage-npu"};
  TempDir dir{"agent-usage-npu-dcmi"};
  Pods pods;
  for (int i = 0; i < 2; ++i) {
    pods.items.push_back(job_pod("pangu", i, pod_uid(i), container_id(i)));
    host.write("proc/" + std::to_string(2000 + i) + "/cgroup",
               cgroup_v2_systemd(pod_uid(i), container_id(i)));
  }
  // Worker 0 alone on 0/0; workers 0 and 1 share 0/1.
  auto dcmi_file = [&](bool second_worker) {
    Json shared = Json::array({{{"pid", 2000}, {"memory", 1ull << 30}}});
    if (second_worker) shared.push_back({{"pid", 2001}, {"memory", 3ull << 30}});
    Json cards = {{{"card", 0},
                   {"devices",
                    {{{"aiCoreUtil", 71},
                      {"hbm", {{"total", 65536}, {"used", 20480}}},
                      {"processes", {{{"pid", 2000}, {"memory", 2ull << 30}}}}},
                     {{"aiCoreUtil", 90},
                      {"hbm", {{"total", 65536}, {"used", 4096}}},
                      {"processes", shared}}}}}};
    dir.write("dcmi.json", Json{{"cards", cards}}.dump());
  };
  dcmi_file(true);
  setenv("RESPOOL_FAKE_DCMI_FILE", (dir.path() / "dcmi.json").c_str(), 1);
  DcmiReader reader(RESPOOL_BINARY_DIR "/agent/testlibs/libdcmi-fake.so", 5s);
  respool::runtime::Registry registry;
  UsageMetrics usage(
      registry, [&](unsigned int pid) { return read_process_cgroup(host.path(), pid); },
      pods.lookup());
  PeriodReadings r;
  r.npu = reader.read();
  usage.observe(r, {"p", "n-1"});
  auto text = registry.render();
  auto w = [](int task, const char* npu) {
    return std::vector<std::string>{"pool=\"p\"",
                                    "node=\"n-1\"",
                                    "namespace=\"default\"",
                                    "pod=\"pangu-" + std::to_string(task) + "-x7k2p\"",
                                    "container=\"train\"",
                                    "job=\"pangu\"",
                                    "task=\"worker-" + std::to_string(task) + "\"",
                                    std::string("npu=\"") + npu + "\""};
  };
  CHECK(sample(text, "ma_container_npu_util", w(0, "0/0")) == 71);
  CHECK(sample(text, "ma_container_npu_memory_used_megabytes", w(0, "0/0")) == 2048);
  CHECK(sample(text, "ma_container_npu_memory_total_megabytes", w(0, "0/0")) == 65536);
  CHECK(sample(text, "ma_container_npu_memory_used_megabytes", w(0, "0/1")) == 1024);
  CHECK(sample(text, "ma_container_npu_memory_used_megabytes", w(1, "0/1")) == 3072);
  CHECK(series(text, "ma_container_npu_util") == 1);  // 0/1 is shared: no utilisation there
  CHECK(sample(text, "ma_node_npu_mem_used_megabytes", {"npu=\"0/1\"", "pool=\"p\""}) == 4096);
  CHECK(sample(text, "ma_node_npu_memory_total_megabytes", {"npu=\"0/0\""}) == 65536);

  // Worker 1 finishes: its series go, and worker 0 now holds 0/1 alone.
  dcmi_file(false);
  pods.items.pop_back();
  r.npu = reader.read();
  unsetenv("RESPOOL_FAKE_DCMI_FILE");
  usage.observe(r, {"p", "n-1"});
  text = registry.render();
  CHECK_FALSE(sample(text, "ma_container_npu_memory_used_megabytes", w(1, "0/1")));
  CHECK(sample(text, "ma_container_npu_util", w(0, "0/1")) == 90);
  CHECK(series(text, "ma_container_npu_memory_used_megabytes") == 2);
}
