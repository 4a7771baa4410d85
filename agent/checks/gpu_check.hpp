#pragma once
// The GPU check (H1–H6, H13): NVML readings → findings. Pure: no I/O, the time comes in.

#include <chrono>

#include "agent/checks/finding.hpp"
#include "agent/checks/gpu_readings.hpp"
#include "agent/checks/thresholds.hpp"

namespace respool::agent {

struct GpuCheckOptions {
  Expectations expect;
  // How long an Xid event keeps its finding (H5).
  std::chrono::seconds xid_hold{std::chrono::hours(1)};
};

FamilyResult check_gpus(const GpuReadings& readings, const GpuCheckOptions& options,
                        std::chrono::system_clock::time_point now);

// The isolation code of an Xid, or "" for an Xid that is the application's, not the GPU's
// (13 graphics exception, 31 MMU fault, 43 stopped channel, 45 preempted...). H5.
std::string_view xid_code(unsigned long long xid);

}  // namespace respool::agent
