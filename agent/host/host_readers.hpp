#pragma once
// Reads the host under --host-root (default /host: the chart mounts the host's /sys and /proc
// there read-only), so that tests point the agent at a made-up tree.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "agent/checks/host_readings.hpp"

namespace respool::agent {

// Every <root>/sys/class/infiniband/<device>/ports/<port>/state.
IbReadings read_infiniband(const std::filesystem::path& host_root);

// <root>/proc/<pid>/cgroup: which cgroups a process is in (usage/cgroup_path.hpp reads them);
// nullopt when the process is gone.
std::optional<std::string> read_process_cgroup(const std::filesystem::path& host_root,
                                               unsigned int pid);

// adjtimex(2), read-only (modes 0). Injected in tests.
using ClockReader = std::function<ClockReading()>;
ClockReading read_kernel_clock();

// <root>/proc/1/mountinfo (the host's mount table, as its init sees it), for `kubelet_dir`.
KubeletDirReading read_kubelet_directory(const std::filesystem::path& host_root,
                                         const std::string& kubelet_dir);

}  // namespace respool::agent
