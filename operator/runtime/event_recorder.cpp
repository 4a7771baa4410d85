#include "operator/runtime/event_recorder.hpp"

#include <cstdio>

#include "apimachinery/time.hpp"
#include "operator/runtime/log.hpp"

namespace respool::runtime {

EventRecorder::EventRecorder(kube::Client& client, Clock& clock, EventRecorderOptions options)
    : client_(client), clock_(clock), options_(std::move(options)) {}

EventRecorder::~EventRecorder() {
  stop();
}

void EventRecorder::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void EventRecorder::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

EventRecorder::Stats EventRecorder::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void EventRecorder::flush() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return (queue_.empty() && !busy_) || !thread_.joinable(); });
}

void EventRecorder::event(const ObjectReference& regarding, EventType type,
                          const std::string& reason, const std::string& action,
                          const std::string& note) {
  Pending p{regarding.uid + "/" + regarding.kind + "/" + regarding.ns + "/" + regarding.name +
                "\x1f" + (type == EventType::Normal ? "Normal" : "Warning") + "\x1f" + reason +
                "\x1f" + action + "\x1f" + note,
            regarding,
            type,
            reason,
            action,
            note,
            clock_.now()};
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(p));
  }
  cv_.notify_all();
}

bool EventRecorder::allow(const std::string& object_key, TimePoint now) {
  auto [it, inserted] = buckets_.try_emplace(object_key, Bucket{double(options_.burst), now});
  Bucket& b = it->second;
  double refilled =
      std::chrono::duration<double>(now - b.last) / std::chrono::duration<double>(options_.refill);
  b.tokens = std::min<double>(options_.burst, b.tokens + refilled);
  b.last = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

void EventRecorder::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      if (stopping_) break;
      continue;
    }
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    write(p);
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

namespace {
std::string event_name(const std::string& object_name, TimePoint at) {
  // As client-go: the object's name and the time in hex nanoseconds, unique enough per object.
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(ns));
  std::string base = object_name.substr(0, 253 - 17);
  return base + suffix;
}
}  // namespace

void EventRecorder::write(const Pending& p) {
  const std::string ns = p.regarding.ns.empty() ? "default" : p.regarding.ns;
  Known known;
  {
    std::lock_guard lock(mu_);
    auto it = known_.find(p.key);
    if (it != known_.end() && p.at - it->second.last < options_.series_window) {
      it->second.count += 1;
      it->second.last = p.at;
      known = it->second;
    } else {
      const std::string object_key = p.regarding.uid + "/" + p.regarding.name;
      if (!allow(object_key, p.at)) {
        ++stats_.dropped;
        return;
      }
    }
  }
  if (known.count > 1) {
    kube::Json patch = {
        {"series",
         {{"count", known.count}, {"lastObservedTime", apimachinery::format_micro_time(p.at)}}}};
    auto r = client_.patch(kube::resources::events_v1, known.ns, known.name, kube::PatchType::Merge,
                           patch);
    std::lock_guard lock(mu_);
    if (r) {
      ++stats_.series_updates;
      return;
    }
    ++stats_.failed;
    known_.erase(p.key);  // the Event went (expired or deleted): start a new one next time
    // An expired Event is expected; anything else (a missing RBAC verb, say) must show.
    if (!r.error().is(kube::Error::Kind::NotFound)) {
      log::warn(
          "events", "cannot count a repeated event",
          {{"reason", p.reason}, {"object", p.regarding.name}, {"error", r.error().describe()}});
    }
    return;
  }
  kube::Json regarding = {{"apiVersion", p.regarding.api_version},
                          {"kind", p.regarding.kind},
                          {"name", p.regarding.name}};
  if (!p.regarding.ns.empty()) regarding["namespace"] = p.regarding.ns;
  if (!p.regarding.uid.empty()) regarding["uid"] = p.regarding.uid;
  const std::string name = event_name(p.regarding.name, p.at);
  kube::Json event = {{"apiVersion", "events.k8s.io/v1"},
                      {"kind", "Event"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"eventTime", apimachinery::format_micro_time(p.at)},
                      {"reportingController", options_.reporting_controller},
                      {"reportingInstance", options_.reporting_instance},
                      {"action", p.action},
                      {"reason", p.reason},
                      {"regarding", regarding},
                      {"note", p.note.substr(0, 1024)},
                      {"type", p.type == EventType::Normal ? "Normal" : "Warning"}};
  auto r = client_.create(kube::resources::events_v1, ns, event);
  std::lock_guard lock(mu_);
  if (!r) {
    ++stats_.failed;
    log::warn(
        "events", "cannot record an event",
        {{"reason", p.reason}, {"object", p.regarding.name}, {"error", r.error().describe()}});
    return;
  }
  ++stats_.created;
  known_[p.key] = Known{name, ns, 1, p.at};
  // Forget series that can no longer grow, so the map stays bounded.
  for (auto it = known_.begin(); it != known_.end();) {
    if (p.at - it->second.last >= options_.series_window)
      it = known_.erase(it);
    else
      ++it;
  }
}

}  // namespace respool::runtime
