// A GPU process → pod → container → task: the Job's worker index names the task, a process that
// exits between the readings or is the host's gives no series, a restarted container keeps its
// name, and a process whose container ID the pod no longer lists counts for nobody.

#include <catch2/catch.hpp>

#include "agent/node_pods.hpp"
#include "agent/usage/container_usage.hpp"
#include "fixtures.hpp"
#include "usage_fixtures.hpp"

using namespace respool::agent;
using namespace respool::agent::test;
using usage::container_gpu_usage;

namespace {

GpuProcessReading process(unsigned int pid, unsigned long long mib, unsigned int sm) {
  GpuProcessReading p;
  p.pid = pid;
  p.used_memory_bytes = mib << 20;
  p.sample = nvml::ProcessUtilizationSample{pid, 1, sm, sm / 2, 0, 0};
  return p;
}

GpuReadings one_gpu(std::vector<GpuProcessReading> processes) {
  auto r = healthy_gpus(1);
  r.devices[0].memory = value(nvml::Memory{80ull << 30, 0, 0});
  r.devices[0].processes = value(std::move(processes));
  return r;
}

}  // namespace

TEST_CASE("a Job's pod: job from its label, task worker-<completion index>", "[agent][usage]") {
  auto info = usage::pod_info_from_json(job_pod("llm", 3, pod_uid(3), container_id(3)));
  CHECK(info.namespace_ == "default");
  CHECK(info.name == "llm-3-x7k2p");
  CHECK(info.job == "llm");
  CHECK(info.task == "worker-3");
  CHECK(info.container_name(container_id(3)) == "train");
  CHECK_FALSE(info.container_name(container_id(4)));

  // Older Jobs: the index only in the annotation, the job only in the owner.
  auto old = job_pod("llm", 5, pod_uid(5), container_id(5));
  old["metadata"]["labels"] = nlohmann::json::object();
  old["metadata"]["annotations"] = {{"batch.kubernetes.io/job-completion-index", "5"}};
  info = usage::pod_info_from_json(old);
  CHECK(info.job == "llm");
  CHECK(info.task == "worker-5");

  // A pod of no Job: neither.
  auto bare = job_pod("x", 0, pod_uid(9), container_id(9));
  bare["metadata"].erase("ownerReferences");
  bare["metadata"]["labels"] = nlohmann::json::object();
  info = usage::pod_info_from_json(bare);
  CHECK(info.job.empty());
  CHECK(info.task.empty());
}

TEST_CASE("the pod cache keeps what the mapping reads", "[agent][usage]") {
  respool::kube::Unstructured pod;
  pod.object = job_pod("llm", 3, pod_uid(3), container_id(3));
  pod.object["spec"] = {{"nodeName", "g-1"}, {"containers", {{{"name", "train"}}}}};
  pod.object["metadata"]["managedFields"] = nlohmann::json::array({{{"manager", "kubelet"}}});
  trim_pod(pod);
  CHECK_FALSE(pod.object.contains("spec"));
  CHECK_FALSE(pod.object["metadata"].contains("managedFields"));
  auto info = usage::pod_info_from_json(pod.object);
  CHECK(info.task == "worker-3");
  CHECK(info.container_name(container_id(3)) == "train");
}

TEST_CASE("processes → containers: a host process and one that exited give no series",
          "[agent][usage]") {
  Pods pods{{job_pod("llm", 3, pod_uid(3), container_id(3))}};
  Cgroups cgroups{{{100, cgroup_v2_systemd(pod_uid(3), container_id(3))},
                   {101, cgroup_v2_systemd(pod_uid(3), container_id(3))},
                   {200, "0::/system.slice/nvidia-persistenced.service\n"}}};
  // pid 300 is listed by NVML but gone before its cgroup is read.
  auto r = one_gpu(
      {process(100, 1000, 40), process(101, 500, 30), process(200, 10, 5), process(300, 7, 9)});
  auto out = container_gpu_usage(r, cgroups.reader(), pods.lookup());
  REQUIRE(out.size() == 1);
  CHECK(out[0].pod == "llm-3-x7k2p");
  CHECK(out[0].container == "train");
  CHECK(out[0].job == "llm");
  CHECK(out[0].task == "worker-3");
  CHECK(out[0].gpu == 0);
  CHECK(out[0].uuid == "GPU-0");
  CHECK(out[0].sm_util == 70);  // the container's two processes, summed
  CHECK(out[0].used_memory_mib == 1500);
  CHECK(out[0].total_memory_mib == 80 * 1024);
}

TEST_CASE("a restarted container: the new ID keeps the name, the old ID counts for nobody",
          "[agent][usage]") {
  auto pod = job_pod("llm", 3, pod_uid(3), container_id(3));
  Pods pods{{pod}};
  Cgroups cgroups{{{100, cgroup_v2_systemd(pod_uid(3), container_id(3))}}};
  auto before =
      container_gpu_usage(one_gpu({process(100, 1000, 40)}), cgroups.reader(), pods.lookup());
  REQUIRE(before.size() == 1);

  // The container restarted as container_id(33): the old process lingers a moment on the GPU.
  pods.items[0]["status"]["containerStatuses"][0]["containerID"] =
      "containerd://" + container_id(33);
  cgroups.files[400] = cgroup_v2_systemd(pod_uid(3), container_id(33));
  auto after = container_gpu_usage(one_gpu({process(100, 1000, 40), process(400, 200, 15)}),
                                   cgroups.reader(), pods.lookup());
  REQUIRE(after.size() == 1);
  CHECK(after[0].container == "train");
  CHECK(after[0].sm_util == 15);
  CHECK(after[0].used_memory_mib == 200);
}

TEST_CASE("a process without a utilisation sample is idle; unknown memory stays unknown",
          "[agent][usage]") {
  Pods pods{{job_pod("llm", 0, pod_uid(0), container_id(0))}};
  Cgroups cgroups{{{100, cgroup_v2_systemd(pod_uid(0), container_id(0))}}};
  GpuProcessReading p;
  p.pid = 100;
  auto out = container_gpu_usage(one_gpu({p}), cgroups.reader(), pods.lookup());
  REQUIRE(out.size() == 1);
  CHECK(out[0].sm_util == 0);
  CHECK_FALSE(out[0].used_memory_mib);
}
