#pragma once
// Readings and findings as JSON: what `--print-readings` prints and what debug logs carry.
// A reading shows its value, or "notSupported", or the call's error.

#include <nlohmann/json.hpp>

#include "agent/checks/finding.hpp"
#include "agent/checks/gpu_readings.hpp"
#include "agent/checks/host_readings.hpp"
#include "agent/checks/npu_readings.hpp"

namespace respool::agent {

nlohmann::json to_json(const GpuReadings& r);
nlohmann::json to_json(const NpuReadings& r);
nlohmann::json to_json(const IbReadings& r);
nlohmann::json to_json(const ClockReading& r);
nlohmann::json to_json(const KubeletDirReading& r);
nlohmann::json to_json(const FamilyResult& r);

}  // namespace respool::agent
