#include "agent/usage/process_owner.hpp"

#include "agent/usage/cgroup_path.hpp"

namespace respool::agent::usage {

const std::optional<Owner>& ProcessOwners::of(unsigned int pid) {
  auto [it, fresh] = cache_.try_emplace(pid);
  if (fresh) it->second = resolve(pid);
  return it->second;
}

std::optional<Owner> ProcessOwners::resolve(unsigned int pid) const {
  auto text = cgroup_(pid);
  if (!text) return std::nullopt;  // exited between the device's list and now
  auto ref = container_from_cgroup(*text);
  if (!ref) return std::nullopt;  // a host process
  auto pod = pods_(ref->pod_uid);
  if (!pod) return std::nullopt;
  auto name = pod->container_name(ref->container_id);
  if (!name) return std::nullopt;  // an ID the pod's status no longer lists
  return Owner{pod->namespace_, pod->name, *name, pod->job, pod->task};
}

}  // namespace respool::agent::usage
