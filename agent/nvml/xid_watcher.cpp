#include "agent/nvml/xid_watcher.hpp"

#include <cstring>

#include "operator/runtime/log.hpp"

namespace respool::agent {

struct XidWatcher::State {
  std::shared_ptr<SharedLibrary> library;  // kept loaded while the thread may call into it
  nvml::Functions fn;
  runtime::Clock* clock = nullptr;
  std::atomic<bool> stopping{false};
  std::atomic<bool> running{true};
  std::mutex mu;
  std::vector<XidEvent> events;
};

namespace {

struct Registered {
  nvml::Device device;
  unsigned int index;
  std::string uuid;
};

// Registers every device for Xid events; empty when the library or the GPUs do not offer them.
std::vector<Registered> register_devices(const nvml::Functions& fn, nvml::EventSet set) {
  std::vector<Registered> out;
  unsigned int count = 0;
  if (fn.device_count(&count) != nvml::kSuccess) return out;
  for (unsigned int i = 0; i < count; ++i) {
    nvml::Device d = nullptr;
    if (fn.handle_by_index(i, &d) != nvml::kSuccess) continue;
    auto rc = fn.register_events(d, nvml::kEventTypeXidCriticalError, set);
    if (rc != nvml::kSuccess) {
      runtime::log::warn("nvml", "GPU does not report Xid events",
                         {{"index", i}, {"nvmlReturn", rc}});
      continue;
    }
    char uuid[96] = {};
    if (fn.uuid) fn.uuid(d, uuid, sizeof uuid - 1);
    out.push_back({d, i, uuid});
  }
  return out;
}

void listen(XidWatcher::State& s) {
  const auto& fn = s.fn;
  if (!fn.event_set_create || !fn.register_events || !fn.event_set_wait) {
    runtime::log::warn("nvml", "the NVML library has no event functions: Xid events not watched");
    return;
  }
  nvml::EventSet set = nullptr;
  if (fn.event_set_create(&set) != nvml::kSuccess) return;
  auto devices = register_devices(fn, set);
  while (!devices.empty() && !s.stopping) {
    nvml::EventData data{};
    auto rc = fn.event_set_wait(set, &data, 500);
    if (rc == nvml::kErrorTimeout) continue;
    if (rc != nvml::kSuccess) {
      runtime::log::warn("nvml", "nvmlEventSetWait_v2 failed", {{"nvmlReturn", rc}});
      std::this_thread::sleep_for(std::chrono::seconds(1));  // real time: the driver's pace
      continue;
    }
    if ((data.eventType & nvml::kEventTypeXidCriticalError) == 0) continue;
    XidEvent e{.index = 0, .uuid = "", .xid = data.eventData, .at = s.clock->now()};
    for (const auto& d : devices) {
      if (d.device == data.device) e.index = d.index, e.uuid = d.uuid;
    }
    runtime::log::warn("nvml", "Xid event", {{"gpu", e.index}, {"uuid", e.uuid}, {"xid", e.xid}});
    std::lock_guard lock(s.mu);
    s.events.push_back(std::move(e));
  }
  if (fn.event_set_free) fn.event_set_free(set);
}

}  // namespace

XidWatcher::XidWatcher(std::shared_ptr<SharedLibrary> library, nvml::Functions fn,
                       runtime::Clock& clock)
    : state_(std::make_shared<State>()) {
  state_->library = std::move(library);
  state_->fn = fn;
  state_->clock = &clock;
  thread_ = std::thread([state = state_] {
    listen(*state);
    state->running = false;
  });
}

XidWatcher::~XidWatcher() {
  state_->stopping = true;
  // A wait returns within its 500 ms; a thread stuck inside a hung driver is left behind.
  for (int i = 0; i < 40 && state_->running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (state_->running) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

std::vector<XidEvent> XidWatcher::take() {
  std::lock_guard lock(state_->mu);
  return std::exchange(state_->events, {});
}

}  // namespace respool::agent
