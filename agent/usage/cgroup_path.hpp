#pragma once
// Which pod and container a process belongs to, from its /proc/<pid>/cgroup: the kubelet puts
// every container in a cgroup under kubepods whose path names the pod's UID and the
// container's runtime ID. Pure (the text is read elsewhere), for cgroup v1 and v2, the systemd
// and cgroupfs drivers, and containerd, CRI-O and Docker's container scopes.

#include <optional>
#include <string>
#include <string_view>

namespace respool::agent::usage {

struct ContainerRef {
  std::string pod_uid;       // the pod's metadata.uid, with dashes
  std::string container_id;  // the runtime's ID, as in status.containerStatuses without scheme
  friend bool operator==(const ContainerRef&, const ContainerRef&) = default;
};

// The container of the first kubepods line; nullopt for a host process, a pod's sandbox
// (pause) or CRI-O's conmon, and for text that names no container.
std::optional<ContainerRef> container_from_cgroup(std::string_view proc_pid_cgroup);

// "containerd://abc" → "abc" (status.containerStatuses[].containerID).
std::string_view strip_runtime_scheme(std::string_view container_id);

}  // namespace respool::agent::usage
