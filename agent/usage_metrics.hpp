#pragma once
// The documents' usage metrics (001 section 4; docs/metrics.md lists each): per GPU of the node
// (ma_node_gpu_*) and NPU (ma_node_npu_*), per InfiniBand port
// (ma_node_infiniband_port_*_bytes_total), and per container and GPU (ma_container_gpu_*) or NPU
// (ma_container_npu_*), every series labelled with the node's pool and name. Each period replaces
// the last one's series: what was not read again disappears.

#include <string>
#include <vector>

#include "agent/checker.hpp"
#include "agent/swept_series.hpp"
#include "agent/usage/container_npu_usage.hpp"
#include "agent/usage/container_usage.hpp"
#include "operator/runtime/metrics.hpp"

namespace respool::agent {

struct NodeIdentity {
  std::string pool;  // the node's respool.io/pool label; "" outside a pool
  std::string node;
};

class UsageMetrics {
 public:
  // Without `pods` (no API access), the container series are not exported.
  UsageMetrics(runtime::Registry& registry, usage::CgroupReader cgroup, usage::PodLookup pods);
  void observe(const PeriodReadings& readings, const NodeIdentity& node);

 private:
  void observe_gpus(const GpuReadings& r, const NodeIdentity& node);
  void observe_npus(const NpuReadings& r, const NodeIdentity& node);
  void observe_infiniband(const IbReadings& r, const NodeIdentity& node);
  void observe_containers(const std::vector<usage::ContainerGpuUsage>& usage,
                          const NodeIdentity& node);
  void observe_npu_containers(const std::vector<usage::ContainerNpuUsage>& usage,
                              const NodeIdentity& node);

  usage::CgroupReader cgroup_;
  usage::PodLookup pods_;
  // {pool, node, gpu, uuid}
  SweptGauges gpu_util_, gpu_memory_util_, gpu_memory_total_, gpu_memory_used_;
  // {pool, node, npu}: the documents name no NPU metric; named as the GPU's (docs/metrics.md)
  SweptGauges npu_util_, npu_memory_util_, npu_memory_total_, npu_memory_used_;
  // {pool, node, device, port}
  SweptCounters ib_received_, ib_transmitted_;
  // {pool, node, namespace, pod, container, job, task, gpu, uuid}
  SweptGauges container_util_, container_mem_copy_, container_encode_, container_decode_,
      container_memory_used_, container_memory_total_, container_memory_util_;
  // {pool, node, namespace, pod, container, job, task, npu}
  SweptGauges container_npu_util_, container_npu_memory_used_, container_npu_memory_total_;
};

}  // namespace respool::agent
