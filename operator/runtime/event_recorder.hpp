#pragma once
// Records events.k8s.io/v1 Events about objects without flooding the API server: a repeat of
// the same event (same object, type, reason, action and note) within six minutes becomes a
// series whose count is patched, not a new object; each object may create at most a burst of
// 25 events, refilled one per five minutes (client-go's spam filter). Writes happen on the
// recorder's own thread so that a reconcile never waits on them.

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "operator/kube/client.hpp"
#include "operator/runtime/clock.hpp"

namespace respool::runtime {

struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string ns;  // "" for cluster-scoped objects (their events go to "default")
  std::string uid;
};

enum class EventType { Normal, Warning };

struct EventRecorderOptions {
  std::string reporting_controller = "respool.io/operator";
  std::string reporting_instance;  // this process (hostname)
  Duration series_window = std::chrono::minutes(6);
  int burst = 25;
  Duration refill = std::chrono::minutes(5);
};

class EventRecorder {
 public:
  EventRecorder(kube::Client& client, Clock& clock, EventRecorderOptions options);
  ~EventRecorder();

  void start();
  // Writes what is queued, then stops.
  void stop();

  void event(const ObjectReference& regarding, EventType type, const std::string& reason,
             const std::string& action, const std::string& note);

  // Counters for tests and metrics.
  struct Stats {
    std::uint64_t created = 0, series_updates = 0, dropped = 0, failed = 0;
  };
  Stats stats() const;
  // Blocks until everything queued so far has been written (or failed).
  void flush();

 private:
  struct Pending {
    std::string key;
    ObjectReference regarding;
    EventType type;
    std::string reason, action, note;
    TimePoint at;
  };
  struct Known {
    std::string name, ns;  // the Event object, once created
    int count = 0;
    TimePoint last{};
  };
  struct Bucket {
    double tokens;
    TimePoint last;
  };

  void run();
  void write(const Pending& p);
  bool allow(const std::string& object_key, TimePoint now);

  kube::Client& client_;
  Clock& clock_;
  EventRecorderOptions options_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  bool busy_ = false;
  std::map<std::string, Known> known_;     // by event key
  std::map<std::string, Bucket> buckets_;  // by object
  Stats stats_;
  std::thread thread_;
};

}  // namespace respool::runtime
