#pragma once
// Which container uses what of each GPU: every process NVML lists on a device is mapped to its
// pod and container through its cgroup and the node's pods, and the processes of one container
// on one GPU are summed. A process that is no pod's (the host's, a pod's that is gone, one that
// exited between the readings) gives no series: it still counts in the device's own readings,
// which the node metrics show. Pure: the cgroup files and the pods come in as functions.

#include <optional>
#include <string>
#include <vector>

#include "agent/checks/gpu_readings.hpp"
#include "agent/usage/process_owner.hpp"

namespace respool::agent::usage {

struct ContainerGpuUsage {
  std::string namespace_, pod, container, job, task;
  unsigned int gpu = 0;  // NVML index
  std::string uuid;
  std::optional<double> used_memory_mib;   // nullopt: NVML knows no process's memory
  std::optional<double> total_memory_mib;  // the device's
  // Percent over the last sample period, summed over the container's processes (at most 100);
  // 0 when the processes left no sample since the last period (idle).
  double sm_util = 0, mem_copy_util = 0, encode_util = 0, decode_util = 0;
};

std::vector<ContainerGpuUsage> container_gpu_usage(const GpuReadings& readings,
                                                   const CgroupReader& cgroup,
                                                   const PodLookup& pods);

}  // namespace respool::agent::usage
