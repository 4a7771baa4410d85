#include "operator/runtime/work_queue.hpp"

namespace respool::runtime {

namespace {

class NoQueueMetrics final : public QueueMetrics {
 public:
  void add(const std::string&) override {}
  void get(const std::string&) override {}
  void done(const std::string&) override {}
  void retry() override {}
};

}  // namespace

WorkQueue::WorkQueue(Clock& clock, std::unique_ptr<RateLimiter> limiter,
                     const QueueMetricsFactory& metrics)
    : clock_(clock),
      limiter_(limiter ? std::move(limiter) : default_controller_rate_limiter(clock)),
      metrics_(metrics ? metrics(clock) : std::make_unique<NoQueueMetrics>()),
      delay_thread_([this] { delay_loop(); }) {}

WorkQueue::~WorkQueue() {
  shutdown();
  delay_thread_.join();
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard guard(mutex_);
  add_locked(key);
}

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_) return;
  auto& entry = *keys_.try_emplace(key).first;
  if (entry.second.dirty) return;
  entry.second.dirty = true;
  metrics_->add(key);
  // A key being processed goes back in the queue when it is done, not before.
  if (entry.second.processing) return;
  queue_.push_back(&entry);
  ready_.notify_one();
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [this] { return !queue_.empty() || shutting_down_; });
  if (queue_.empty()) return std::nullopt;
  Entry& entry = *queue_.front();
  queue_.pop_front();
  metrics_->get(entry.first);
  entry.second.dirty = false;
  entry.second.processing = true;
  ++processing_count_;
  return entry.first;
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard guard(mutex_);
  const auto it = keys_.find(key);
  // Done for a key not handed out would queue it twice: ignore it.
  if (it == keys_.end() || !it->second.processing) return;
  metrics_->done(key);
  it->second.processing = false;
  --processing_count_;
  if (it->second.dirty) {
    queue_.push_back(&*it);
    ready_.notify_one();
  } else {
    keys_.erase(it);
    if (processing_count_ == 0) drained_.notify_all();
  }
}

void WorkQueue::add_after(const std::string& key, Duration delay) {
  std::lock_guard guard(mutex_);
  if (shutting_down_) return;
  metrics_->retry();
  if (delay <= Duration::zero()) {
    add_locked(key);
    return;
  }
  const TimePoint ready_at =
      delay >= TimePoint::max() - clock_.now() ? TimePoint::max() : clock_.now() + delay;
  const auto it = waiting_by_key_.find(key);
  if (it != waiting_by_key_.end()) {
    if (it->second.first <= ready_at) return;  // the earlier add stands
    waiting_.erase(it->second);
    waiting_by_key_.erase(it);
  }
  const WaitKey slot{ready_at, next_sequence_++};
  waiting_.emplace(slot, key);
  waiting_by_key_.emplace(key, slot);
  delay_changed_.notify_one();
}

void WorkQueue::delay_loop() {
  std::unique_lock lock(mutex_);
  while (!shutting_down_) {
    const TimePoint now = clock_.now();
    while (!waiting_.empty() && waiting_.begin()->first.first <= now) {
      auto node = waiting_.extract(waiting_.begin());
      waiting_by_key_.erase(node.mapped());
      add_locked(node.mapped());
    }
    const TimePoint next = waiting_.empty() ? TimePoint::max() : waiting_.begin()->first.first;
    // Any add_after (it bumps the sequence) may have brought the next due time closer.
    const std::uint64_t seen = next_sequence_;
    clock_.wait_until(delay_changed_, lock, next,
                      [&] { return shutting_down_ || next_sequence_ != seen; });
  }
}

void WorkQueue::add_rate_limited(const std::string& key) {
  add_after(key, limiter_->when(key));
}

void WorkQueue::forget(const std::string& key) {
  limiter_->forget(key);
}

int WorkQueue::num_requeues(const std::string& key) const {
  return limiter_->num_requeues(key);
}

std::size_t WorkQueue::len() const {
  std::lock_guard guard(mutex_);
  return queue_.size();
}

std::size_t WorkQueue::waiting() const {
  std::lock_guard guard(mutex_);
  return waiting_.size();
}

void WorkQueue::shutdown() {
  std::lock_guard guard(mutex_);
  shutting_down_ = true;
  draining_ = false;
  ready_.notify_all();
  drained_.notify_all();
  delay_changed_.notify_all();
}

void WorkQueue::shutdown_with_drain() {
  std::unique_lock lock(mutex_);
  shutting_down_ = true;
  draining_ = true;
  ready_.notify_all();
  delay_changed_.notify_all();
  drained_.wait(lock, [this] { return processing_count_ == 0 || !draining_; });
}

bool WorkQueue::shutting_down() const {
  std::lock_guard guard(mutex_);
  return shutting_down_;
}

}  // namespace respool::runtime
