#pragma once
// The pod and container a device's process runs in, through its cgroup and the node's pods:
// what the GPU and the NPU container usage share. A process that is no pod's (the host's, a
// pod's that is gone, one that exited between the device's list and now) has no owner.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "agent/usage/pod_info.hpp"

namespace respool::agent::usage {

// The text of <host-root>/proc/<pid>/cgroup; nullopt when the process is gone.
using CgroupReader = std::function<std::optional<std::string>(unsigned int pid)>;

struct Owner {
  std::string namespace_, pod, container, job, task;
  auto key() const { return std::tie(namespace_, pod, container); }
  bool operator<(const Owner& o) const { return key() < o.key(); }
  bool operator==(const Owner& o) const { return key() == o.key(); }
};

// Resolves each pid once a period (one process can use several devices).
class ProcessOwners {
 public:
  ProcessOwners(const CgroupReader& cgroup, const PodLookup& pods) : cgroup_(cgroup), pods_(pods) {}
  const std::optional<Owner>& of(unsigned int pid);

 private:
  std::optional<Owner> resolve(unsigned int pid) const;

  const CgroupReader& cgroup_;
  const PodLookup& pods_;
  std::map<unsigned int, std::optional<Owner>> cache_;
};

}  // namespace respool::agent::usage
