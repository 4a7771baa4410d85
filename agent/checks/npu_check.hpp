#pragma once
// The NPU check (H7–H9, H13): DCMI readings and the link-down history → findings. Pure.

#include <chrono>

#include "agent/checks/finding.hpp"
#include "agent/checks/link_down_window.hpp"
#include "agent/checks/npu_readings.hpp"
#include "agent/checks/thresholds.hpp"

namespace respool::agent {

// The link name the window keys an NPU by: "npu 0/1" (card/device).
std::string npu_link_name(const NpuDeviceReading& d);

// Feeds this period's network readings to the window (a link is up when DCMI's network probe
// answers OK). Call before check_npus.
void observe_links(const NpuReadings& readings, LinkDownWindow& window,
                   std::chrono::system_clock::time_point now);

FamilyResult check_npus(const NpuReadings& readings, const LinkDownWindow& window,
                        const Expectations& expect, std::chrono::system_clock::time_point now);

}  // namespace respool::agent
