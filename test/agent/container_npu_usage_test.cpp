// An NPU process → pod → container: memory is summed per container and device, the device's AI
// Core utilisation goes to a container only when it holds the device alone (DCMI has no
// per-process utilisation), and a host process or one whose cgroup is gone gives no series.

#include <map>

#include <catch2/catch.hpp>

#include "agent/usage/container_npu_usage.hpp"
#include "usage_fixtures.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using usage::container_npu_usage;

namespace {

// Card 0's device `device`, 64 GB of HBM, at `util` percent AI Core, running (pid, MiB) pairs.
NpuDeviceReading npu(int device, unsigned int util,
                     std::vector<std::pair<int, unsigned long>> processes) {
  NpuDeviceReading d;
  d.device = device;
  d.ai_core_util = {dcmi::kOk, util};
  d.hbm = {dcmi::kOk, dcmi::HbmInfo{65536, 1600, 20000, 40, 0}};
  d.processes.rc = dcmi::kOk;
  for (auto [pid, mib] : processes)
    d.processes.value.push_back({pid, mib << 20});
  return d;
}

struct NpuNode {
  Pods pods{{job_pod("pangu", 0, pod_uid(0), container_id(0)),
             job_pod("pangu", 1, pod_uid(1), container_id(1))}};
  Cgroups cgroups{{{2000, cgroup_v2_systemd(pod_uid(0), container_id(0))},
                   {2001, cgroup_v2_systemd(pod_uid(0), container_id(0))},
                   {2100, cgroup_v2_systemd(pod_uid(1), container_id(1))},
                   {4242, "0::/system.slice/npu-burn-in.service\n"}}};
  std::vector<usage::ContainerNpuUsage> usage(std::vector<NpuDeviceReading> devices) const {
    NpuReadings r;
    r.library = NpuReadings::Library::Loaded;
    r.devices = std::move(devices);
    return container_npu_usage(r, cgroups.reader(), pods.lookup());
  }
};

}  // namespace

TEST_CASE("NPU: a container alone on a device gets its memory and the device's utilisation",
          "[agent][usage][npu]") {
  NpuNode node;
  auto out = node.usage({npu(0, 71, {{2000, 3000}, {2001, 1000}})});
  REQUIRE(out.size() == 1);
  CHECK(out[0].namespace_ == "default");
  CHECK(out[0].pod == "pangu-0-x7k2p");
  CHECK(out[0].container == "train");
  CHECK(out[0].job == "pangu");
  CHECK(out[0].task == "worker-0");
  CHECK(out[0].npu == "0/0");
  CHECK(out[0].used_memory_mib == 4000);  // its two processes, summed
  CHECK(out[0].total_memory_mib == 65536);
  CHECK(out[0].util == 71);
}

TEST_CASE("NPU: two containers on one device get their memory but no utilisation",
          "[agent][usage][npu]") {
  NpuNode node;
  auto out = node.usage({npu(1, 90, {{2000, 3000}, {2100, 500}})});
  REQUIRE(out.size() == 2);
  for (const auto& u : out) {
    CHECK(u.npu == "0/1");
    CHECK_FALSE(u.util);
  }
  CHECK(out[0].task == "worker-0");
  CHECK(out[0].used_memory_mib == 3000);
  CHECK(out[1].task == "worker-1");
  CHECK(out[1].used_memory_mib == 500);
}

TEST_CASE("NPU: a host process gives no series, and takes the utilisation from a container",
          "[agent][usage][npu]") {
  NpuNode node;
  CHECK(node.usage({npu(0, 50, {{4242, 100}})}).empty());
  auto shared = node.usage({npu(0, 50, {{2100, 700}, {4242, 100}})});
  REQUIRE(shared.size() == 1);
  CHECK(shared[0].used_memory_mib == 700);
  CHECK_FALSE(shared[0].util);  // part of the 50 % is the host's
}

TEST_CASE("NPU: a process whose cgroup is gone gives no series", "[agent][usage][npu]") {
  NpuNode node;
  // pid 3000 is listed by DCMI but exited before its cgroup is read.
  CHECK(node.usage({npu(0, 60, {{3000, 900}})}).empty());
  // A process whose pod the node does not know gives none either.
  node.pods.items.pop_back();
  CHECK(node.usage({npu(0, 60, {{2100, 900}})}).empty());
}

TEST_CASE("NPU: unread HBM or utilisation leaves those values out, never 0",
          "[agent][usage][npu]") {
  NpuNode node;
  auto d = npu(0, 71, {{2000, 3000}});
  d.hbm.rc = dcmi::kSymbolMissing;
  d.ai_core_util.rc = dcmi::kNotSupported;
  auto out = node.usage({d});
  REQUIRE(out.size() == 1);
  CHECK(out[0].used_memory_mib == 3000);
  CHECK_FALSE(out[0].total_memory_mib);
  CHECK_FALSE(out[0].util);
  // Processes not read (a library without dcmi_get_device_resource_info): no series at all.
  d.processes.rc = dcmi::kSymbolMissing;
  CHECK(node.usage({d}).empty());
}
