#pragma once
// Which container uses what of each Ascend NPU: every process DCMI lists on a device
// (dcmi_get_device_resource_info) is mapped to its pod and container as the GPUs' are, and the
// memory of one container's processes on one NPU is summed. DCMI has no per-process
// utilisation: a container gets the device's AI Core utilisation only when it holds the device
// alone (every process listed on it is that container's), since otherwise the device's figure
// is shared by others. Pure: the cgroup files and the pods come in as functions.

#include <optional>
#include <string>
#include <vector>

#include "agent/checks/npu_readings.hpp"
#include "agent/usage/process_owner.hpp"

namespace respool::agent::usage {

struct ContainerNpuUsage {
  std::string namespace_, pod, container, job, task;
  std::string npu;                         // "<card>/<device>", as the node's NPU series
  double used_memory_mib = 0;              // the container's processes' on this device
  std::optional<double> total_memory_mib;  // the device's HBM; nullopt: not read
  std::optional<double> util;              // the device's AI Core %, when the container is alone
};

std::vector<ContainerNpuUsage> container_npu_usage(const NpuReadings& readings,
                                                   const CgroupReader& cgroup,
                                                   const PodLookup& pods);

}  // namespace respool::agent::usage
