#pragma once
// The InfiniBand (H10), clock (H11) and kubelet-directory (H12) checks: pure functions of the
// host readings.

#include "agent/checks/finding.hpp"
#include "agent/checks/host_readings.hpp"
#include "agent/checks/thresholds.hpp"

namespace respool::agent {

FamilyResult check_infiniband(const IbReadings& readings, const Expectations& expect);
FamilyResult check_clock(const ClockReading& reading, const ClockLimits& limits);
FamilyResult check_kubelet_directory(const KubeletDirReading& reading);

// The mount of `path` in a /proc/<pid>/mountinfo text: its mount point and whether it is
// read-only (per-mount or superblock option "ro"); nullopt when the text has no line that
// parses or none covers the path.
struct MountState {
  std::string mount_point;
  bool read_only = false;
};
std::optional<MountState> mount_of(const std::string& mountinfo, const std::string& path);

}  // namespace respool::agent
