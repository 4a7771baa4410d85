#pragma once
// Reads a node's GPUs through NVML: loads libnvidia-ml at run time (dlopen, retried every
// period until it loads), initialises it once, and reads every device each period on a
// BoundedWorker so that a hung call costs at most --nvml-timeout. Xid events come from a
// thread of their own (xid_watcher.hpp), started once NVML is up.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/bounded_worker.hpp"
#include "agent/checks/gpu_readings.hpp"
#include "agent/nvml/nvml_library.hpp"
#include "operator/runtime/clock.hpp"

namespace respool::agent {

class XidWatcher;

class NvmlReader {
 public:
  NvmlReader(std::string library_path, std::chrono::milliseconds timeout, runtime::Clock& clock,
             bool watch_xids = true);
  ~NvmlReader();

  // One period's readings (xids left empty: the agent fills them from its persisted state).
  GpuReadings read();
  // Xid events seen since the last call.
  std::vector<XidEvent> take_xids();

  struct Session;  // what a read task owns (the library, whether it is initialised)

 private:
  std::string library_path_;
  std::chrono::milliseconds timeout_;
  runtime::Clock& clock_;
  bool watch_xids_;
  std::shared_ptr<Session> session_;
  BoundedWorker worker_;
  std::unique_ptr<XidWatcher> xids_;
};

// The reads of one device (exposed for the one-shot print mode's tests): every call is named
// to `progress` before it is made. `last_sample`: the device's newest process utilisation
// sample seen so far (nvml_usage.hpp); nullptr takes every sample NVML holds.
void read_device(const nvml::Functions& fn, unsigned int index, GpuDeviceReading& out,
                 BoundedWorker::Progress& progress, unsigned long long* last_sample = nullptr);

}  // namespace respool::agent
