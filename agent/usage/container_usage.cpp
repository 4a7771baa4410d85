#include "agent/usage/container_usage.hpp"

#include <algorithm>
#include <map>

namespace respool::agent::usage {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

void add(ContainerGpuUsage& u, const GpuProcessReading& p) {
  if (p.used_memory_bytes) {
    u.used_memory_mib = u.used_memory_mib.value_or(0) + double(*p.used_memory_bytes) / kMiB;
  }
  if (!p.sample) return;
  auto sum = [](double& to, unsigned int v) { to = std::min(100.0, to + v); };
  sum(u.sm_util, p.sample->smUtil);
  sum(u.mem_copy_util, p.sample->memUtil);
  sum(u.encode_util, p.sample->encUtil);
  sum(u.decode_util, p.sample->decUtil);
}

}  // namespace

std::vector<ContainerGpuUsage> container_gpu_usage(const GpuReadings& readings,
                                                   const CgroupReader& cgroup,
                                                   const PodLookup& pods) {
  ProcessOwners owners(cgroup, pods);
  std::map<std::pair<Owner, unsigned int>, ContainerGpuUsage> by_owner;
  for (const auto& d : readings.devices) {
    if (!d.processes.ok()) continue;
    for (const auto& p : d.processes.value) {
      const auto& owner = owners.of(p.pid);
      if (!owner) continue;
      auto [it, fresh] = by_owner.try_emplace({*owner, d.index});
      auto& u = it->second;
      if (fresh) {
        u = {owner->namespace_, owner->pod, owner->container, owner->job,  owner->task,
             d.index,           d.uuid,     std::nullopt,     std::nullopt};
        if (d.memory.ok()) u.total_memory_mib = double(d.memory.value.total) / kMiB;
      }
      add(u, p);
    }
  }
  std::vector<ContainerGpuUsage> out;
  out.reserve(by_owner.size());
  for (auto& [key, u] : by_owner)
    out.push_back(std::move(u));
  return out;
}

}  // namespace respool::agent::usage
