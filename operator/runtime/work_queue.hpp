#pragma once
// client-go's rate-limited delaying work queue, for string keys.
//
// - add() marks a key dirty; a key queued once is queued once however often it is added.
// - get() blocks until a key is ready (or returns nullopt once the queue is shut down and
//   empty); the key is then processing until done(). A key added while it is processing is
//   handed out again only after done(): two workers never hold the same key.
// - add_after() adds when the delay has passed on the queue's Clock (the earliest of several
//   delays for one key wins); add_rate_limited() delays by the rate limiter's verdict for the
//   key, forget() resets it after a success.
// - shutdown(): adds are ignored from now on, waiting getters return nullopt at once and later
//   get()s drain what is still queued. shutdown_with_drain() also waits until every key
//   handed out is done.
// Thread-safe. The Clock must outlive the queue.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

#include "operator/runtime/clock.hpp"
#include "operator/runtime/queue_metrics.hpp"
#include "operator/runtime/rate_limiter.hpp"

namespace respool::runtime {

class WorkQueue {
 public:
  // A null `limiter` means default_controller_rate_limiter(clock); an empty `metrics` means
  // none are kept.
  explicit WorkQueue(Clock& clock, std::unique_ptr<RateLimiter> limiter = nullptr,
                     const QueueMetricsFactory& metrics = {});
  // Shuts down (without draining) and stops the delay thread.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void add(const std::string& key);
  std::optional<std::string> get();
  void done(const std::string& key);

  void add_after(const std::string& key, Duration delay);
  void add_rate_limited(const std::string& key);
  void forget(const std::string& key);
  int num_requeues(const std::string& key) const;

  // Keys queued and not yet handed out (not those processing or waiting for a delay).
  std::size_t len() const;
  // Keys waiting for their add_after delay.
  std::size_t waiting() const;
  void shutdown();
  void shutdown_with_drain();
  bool shutting_down() const;

 private:
  void add_locked(const std::string& key);
  void delay_loop();

  Clock& clock_;
  std::unique_ptr<RateLimiter> limiter_;
  std::unique_ptr<QueueMetrics> metrics_;

  // Where a key stands. dirty: it needs processing (it is queued, or it will be queued again
  // when done). processing: a worker holds it. A key neither dirty nor processing has no entry.
  struct KeyState {
    bool dirty = false;
    bool processing = false;
  };
  using Entry = std::pair<const std::string, KeyState>;

  mutable std::mutex mutex_;
  std::condition_variable ready_;    // a key was queued, or shutdown
  std::condition_variable drained_;  // processing emptied, or the drain was called off
  std::unordered_map<std::string, KeyState> keys_;
  // Queued keys in order, as their entries in keys_ (which stay put: a queued key is dirty, so
  // its entry is not erased).
  std::deque<Entry*> queue_;
  std::size_t processing_count_ = 0;
  bool shutting_down_ = false;
  bool draining_ = false;

  // Delayed adds, earliest first; the sequence number keeps equal times in call order.
  using WaitKey = std::pair<TimePoint, std::uint64_t>;
  std::map<WaitKey, std::string> waiting_;
  std::unordered_map<std::string, WaitKey> waiting_by_key_;
  std::uint64_t next_sequence_ = 0;
  std::condition_variable delay_changed_;
  std::thread delay_thread_;
};

}  // namespace respool::runtime
