#include "agent/usage/container_npu_usage.hpp"

#include <map>

namespace respool::agent::usage {

namespace {

constexpr double kNpuBytesPerMiB = 1024.0 * 1024.0;

// The device's utilisation is the container's only when no other process shares the device:
// another container's, the host's, or one whose owner is unknown (it exited, or its pod is not
// known yet) could account for any part of it.
bool npu_held_alone(const std::vector<dcmi::ProcMemInfo>& processes, ProcessOwners& owners) {
  std::optional<Owner> only;
  for (const auto& p : processes) {
    if (p.proc_id <= 0) return false;
    const auto& owner = owners.of(static_cast<unsigned int>(p.proc_id));
    if (!owner || (only && !(*only == *owner))) return false;
    only = owner;
  }
  return only.has_value();
}

}  // namespace

std::vector<ContainerNpuUsage> container_npu_usage(const NpuReadings& readings,
                                                   const CgroupReader& cgroup,
                                                   const PodLookup& pods) {
  ProcessOwners owners(cgroup, pods);
  std::vector<ContainerNpuUsage> out;
  for (const auto& d : readings.devices) {
    if (!d.processes.ok()) continue;
    const auto npu = std::to_string(d.card) + "/" + std::to_string(d.device);
    std::map<Owner, ContainerNpuUsage> by_owner;
    for (const auto& p : d.processes.value) {
      if (p.proc_id <= 0) continue;  // no pid DCMI could name
      const auto& owner = owners.of(static_cast<unsigned int>(p.proc_id));
      if (!owner) continue;
      auto [it, fresh] = by_owner.try_emplace(*owner);
      auto& u = it->second;
      if (fresh) {
        u.namespace_ = owner->namespace_;
        u.pod = owner->pod;
        u.container = owner->container;
        u.job = owner->job;
        u.task = owner->task;
        u.npu = npu;
        if (d.hbm.ok()) u.total_memory_mib = double(d.hbm.value.memory_size);
      }
      u.used_memory_mib += double(p.proc_mem_usage) / kNpuBytesPerMiB;
    }
    if (by_owner.size() == 1 && d.ai_core_util.ok() && npu_held_alone(d.processes.value, owners)) {
      by_owner.begin()->second.util = d.ai_core_util.value;
    }
    for (auto& [owner, u] : by_owner)
      out.push_back(std::move(u));
  }
  return out;
}

}  // namespace respool::agent::usage
