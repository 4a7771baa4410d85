#include "agent/usage_metrics.hpp"

namespace respool::agent {

namespace {

using Labels = std::vector<std::string>;
const Labels kGpu{"pool", "node", "gpu", "uuid"};
const Labels kNpu{"pool", "node", "npu"};
const Labels kPort{"pool", "node", "device", "port"};
const Labels kContainer{"pool", "node", "namespace", "pod", "container",
                        "job",  "task", "gpu",       "uuid"};
const Labels kContainerNpu{"pool", "node", "namespace", "pod", "container", "job", "task", "npu"};
constexpr double kMiB = 1024.0 * 1024.0;

runtime::GaugeFamily& gauge(runtime::Registry& r, const char* name, const char* help,
                            const Labels& labels) {
  return r.gauge(name, help, labels);
}

}  // namespace

UsageMetrics::UsageMetrics(runtime::Registry& r, usage::CgroupReader cgroup, usage::PodLookup pods)
    : cgroup_(std::move(cgroup)),
      pods_(std::move(pods)),
      gpu_util_(gauge(r, "ma_node_gpu_util", "GPU usage (percent)", kGpu)),
      gpu_memory_util_(gauge(r, "ma_node_gpu_memory_util",
                             "Used GPU memory over the GPU's total (percent)", kGpu)),
      gpu_memory_total_(gauge(r, "ma_node_gpu_memory_total_megabytes",
                              "Total GPU memory (MB of 2^20 bytes, as nvidia-smi's MiB)", kGpu)),
      gpu_memory_used_(
          gauge(r, "ma_node_gpu_mem_used_megabytes", "Used GPU memory (MB of 2^20 bytes)", kGpu)),
      npu_util_(gauge(r, "ma_node_npu_util", "NPU AI Core usage (percent)", kNpu)),
      npu_memory_util_(
          gauge(r, "ma_node_npu_memory_util", "NPU on-chip memory (HBM) in use (percent)", kNpu)),
      npu_memory_total_(gauge(r, "ma_node_npu_memory_total_megabytes",
                              "Total NPU on-chip memory (HBM, MB as DCMI reports it)", kNpu)),
      npu_memory_used_(gauge(r, "ma_node_npu_mem_used_megabytes",
                             "Used NPU on-chip memory (HBM, MB as DCMI reports it)", kNpu)),
      ib_received_(r.counter("ma_node_infiniband_port_received_data_bytes_total",
                             "Data received on all VLs of the port (PortRcvData x 4), bytes",
                             kPort)),
      ib_transmitted_(r.counter("ma_node_infiniband_port_transmitted_data_bytes_total",
                                "Data transmitted on all VLs of the port (PortXmitData x 4), bytes",
                                kPort)),
      container_util_(gauge(r, "ma_container_gpu_util",
                            "GPU (SM) usage of the container's processes on the GPU (percent)",
                            kContainer)),
      container_mem_copy_(gauge(r, "ma_container_gpu_mem_copy_util",
                                "GPU memory bandwidth usage of the container's processes "
                                "(percent)",
                                kContainer)),
      container_encode_(gauge(r, "ma_container_gpu_encode_util",
                              "GPU encoder usage of the container's processes (percent)",
                              kContainer)),
      container_decode_(gauge(r, "ma_container_gpu_decode_util",
                              "GPU decoder usage of the container's processes (percent)",
                              kContainer)),
      container_memory_used_(gauge(r, "ma_container_gpu_memory_used_megabytes",
                                   "GPU memory the container's processes use (MB of 2^20 bytes)",
                                   kContainer)),
      container_memory_total_(gauge(r, "ma_container_gpu_memory_total_megabytes",
                                    "Total memory of the GPU the container uses (MB of 2^20 "
                                    "bytes)",
                                    kContainer)),
      container_memory_util_(gauge(r, "ma_container_gpu_memory_util",
                                   "GPU memory the container uses over the GPU's total (percent)",
                                   kContainer)),
      container_npu_util_(gauge(r, "ma_container_npu_util",
                                "AI Core usage of the NPU the container holds alone (percent)",
                                kContainerNpu)),
      container_npu_memory_used_(gauge(r, "ma_container_npu_memory_used_megabytes",
                                       "NPU memory the container's processes use (MB of 2^20 "
                                       "bytes)",
                                       kContainerNpu)),
      container_npu_memory_total_(gauge(r, "ma_container_npu_memory_total_megabytes",
                                        "Total on-chip memory (HBM) of the NPU the container "
                                        "uses (MB)",
                                        kContainerNpu)) {}

void UsageMetrics::observe(const PeriodReadings& readings, const NodeIdentity& node) {
  observe_gpus(readings.gpu, node);
  observe_npus(readings.npu, node);
  observe_infiniband(readings.infiniband, node);
  if (pods_) {
    observe_containers(usage::container_gpu_usage(readings.gpu, cgroup_, pods_), node);
    observe_npu_containers(usage::container_npu_usage(readings.npu, cgroup_, pods_), node);
  }
}

void UsageMetrics::observe_gpus(const GpuReadings& r, const NodeIdentity& node) {
  for (const auto& d : r.devices) {
    Labels labels{node.pool, node.node, std::to_string(d.index), d.uuid};
    if (d.utilization.ok()) gpu_util_.set(labels, d.utilization.value.gpu);
    if (!d.memory.ok()) continue;
    const auto& m = d.memory.value;
    gpu_memory_total_.set(labels, double(m.total) / kMiB);
    gpu_memory_used_.set(labels, double(m.used) / kMiB);
    if (m.total > 0) gpu_memory_util_.set(labels, 100.0 * double(m.used) / double(m.total));
  }
  for (auto* family : {&gpu_util_, &gpu_memory_util_, &gpu_memory_total_, &gpu_memory_used_})
    family->sweep();
}

void UsageMetrics::observe_npus(const NpuReadings& r, const NodeIdentity& node) {
  for (const auto& d : r.devices) {
    Labels labels{node.pool, node.node, std::to_string(d.card) + "/" + std::to_string(d.device)};
    if (d.ai_core_util.ok()) npu_util_.set(labels, d.ai_core_util.value);
    if (d.hbm_util.ok()) npu_memory_util_.set(labels, d.hbm_util.value);
    if (d.hbm.ok()) {
      npu_memory_total_.set(labels, double(d.hbm.value.memory_size));
      npu_memory_used_.set(labels, double(d.hbm.value.memory_usage));
    }
  }
  for (auto* family : {&npu_util_, &npu_memory_util_, &npu_memory_total_, &npu_memory_used_})
    family->sweep();
}

void UsageMetrics::observe_infiniband(const IbReadings& r, const NodeIdentity& node) {
  // The hardware counts 4-octet words; the documents' names say bytes.
  for (const auto& p : r.ports) {
    Labels labels{node.pool, node.node, p.device, p.port};
    if (p.rcv_data_words) ib_received_.set(labels, 4.0 * double(*p.rcv_data_words));
    if (p.xmit_data_words) ib_transmitted_.set(labels, 4.0 * double(*p.xmit_data_words));
  }
  ib_received_.sweep();
  ib_transmitted_.sweep();
}

void UsageMetrics::observe_containers(const std::vector<usage::ContainerGpuUsage>& usage,
                                      const NodeIdentity& node) {
  for (const auto& u : usage) {
    Labels labels{node.pool, node.node, u.namespace_,          u.pod, u.container,
                  u.job,     u.task,    std::to_string(u.gpu), u.uuid};
    container_util_.set(labels, u.sm_util);
    container_mem_copy_.set(labels, u.mem_copy_util);
    container_encode_.set(labels, u.encode_util);
    container_decode_.set(labels, u.decode_util);
    if (u.used_memory_mib) container_memory_used_.set(labels, *u.used_memory_mib);
    if (u.total_memory_mib) container_memory_total_.set(labels, *u.total_memory_mib);
    if (u.used_memory_mib && u.total_memory_mib && *u.total_memory_mib > 0) {
      container_memory_util_.set(labels, 100.0 * *u.used_memory_mib / *u.total_memory_mib);
    }
  }
  for (auto* family :
       {&container_util_, &container_mem_copy_, &container_encode_, &container_decode_,
        &container_memory_used_, &container_memory_total_, &container_memory_util_}) {
    family->sweep();
  }
}

void UsageMetrics::observe_npu_containers(const std::vector<usage::ContainerNpuUsage>& usage,
                                          const NodeIdentity& node) {
  for (const auto& u : usage) {
    Labels labels{node.pool, node.node, u.namespace_, u.pod, u.container, u.job, u.task, u.npu};
    container_npu_memory_used_.set(labels, u.used_memory_mib);
    if (u.total_memory_mib) container_npu_memory_total_.set(labels, *u.total_memory_mib);
    if (u.util) container_npu_util_.set(labels, *u.util);
  }
  for (auto* family :
       {&container_npu_util_, &container_npu_memory_used_, &container_npu_memory_total_}) {
    family->sweep();
  }
}

}  // namespace respool::agent
