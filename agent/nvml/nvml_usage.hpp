#pragma once
// What a GPU's memory and its processes use (nvmlDeviceGetMemoryInfo, the compute processes and
// their utilisation samples), read beside the health readings for the usage metrics
// (docs/metrics.md). Called on the reader's bounded worker, like every NVML call.

#include "agent/bounded_worker.hpp"
#include "agent/checks/gpu_readings.hpp"
#include "agent/nvml/nvml_library.hpp"

namespace respool::agent {

// Fills out.memory, out.processes and out.process_samples_rc. `last_sample` is the newest
// sample timestamp seen on this device (0 at first): only newer samples count, so that a
// process idle since the last period has none; it is advanced to the newest seen.
void read_usage(const nvml::Functions& fn, nvml::Device device, GpuDeviceReading& out,
                BoundedWorker::Progress& progress, unsigned long long& last_sample);

}  // namespace respool::agent
