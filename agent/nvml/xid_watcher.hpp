#pragma once
// Listens for NVML's Xid critical-error events (nvmlEventSetCreate, nvmlDeviceRegisterEvents,
// nvmlEventSetWait_v2) on a thread of its own and keeps what it hears for the agent to take.
// Xid events are moments, not states: the agent persists them (state_file.hpp) and the GPU
// check holds each one's finding for --xid-hold.

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "agent/checks/gpu_readings.hpp"
#include "agent/nvml/nvml_library.hpp"
#include "operator/runtime/clock.hpp"

namespace respool::agent {

class XidWatcher {
 public:
  XidWatcher(std::shared_ptr<SharedLibrary> library, nvml::Functions fn, runtime::Clock& clock);
  ~XidWatcher();
  std::vector<XidEvent> take();

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace respool::agent
