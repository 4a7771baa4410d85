#include "operator/runtime/rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace respool::runtime {

namespace {

constexpr double kNanosPerSecond = 1e9;

// Go's time.Duration.Seconds(): whole seconds and the remainder converted apart, so that the
// token arithmetic below rounds exactly as golang.org/x/time/rate does.
double go_seconds(Duration d) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  const auto whole = ns / 1'000'000'000;
  const auto rest = ns % 1'000'000'000;
  return static_cast<double>(whole) + static_cast<double>(rest) / kNanosPerSecond;
}

// Go's time.Duration(float64 nanoseconds): truncation toward zero, saturating.
Duration go_duration(double nanos) {
  if (nanos >= static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
    return Duration::max();
  }
  return std::chrono::duration_cast<Duration>(
      std::chrono::nanoseconds{static_cast<std::int64_t>(nanos)});
}

}  // namespace

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Duration base_delay,
                                                                     Duration max_delay)
    : base_delay_(base_delay), max_delay_(max_delay) {}

Duration ItemExponentialFailureRateLimiter::when(const std::string& item) {
  int exponent = 0;
  {
    std::lock_guard guard(mutex_);
    exponent = failures_[item]++;
  }
  const double base_ns = static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(base_delay_).count());
  // Computed in floating point so that many failures saturate instead of overflowing.
  const double backoff_ns = base_ns * std::pow(2.0, exponent);
  const Duration backoff = go_duration(backoff_ns);
  return std::min(backoff, max_delay_);
}

void ItemExponentialFailureRateLimiter::forget(const std::string& item) {
  std::lock_guard guard(mutex_);
  failures_.erase(item);
}

int ItemExponentialFailureRateLimiter::num_requeues(const std::string& item) const {
  std::lock_guard guard(mutex_);
  const auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(const Clock& clock, double qps, int burst)
    : clock_(clock), qps_(qps), burst_(burst), tokens_(static_cast<double>(burst)) {}

Duration BucketRateLimiter::when(const std::string&) {
  const TimePoint now = clock_.now();
  std::lock_guard guard(mutex_);
  // Refill for the time since the last reservation (a clock that went back refills nothing).
  if (!started_ || now < last_) last_ = now;
  double tokens = tokens_;
  if (qps_ > 0) tokens += go_seconds(now - last_) * qps_;
  tokens = std::min(tokens, static_cast<double>(burst_));

  tokens -= 1;
  Duration wait{0};
  if (tokens < 0) {
    wait = qps_ > 0 ? go_duration(-tokens / qps_ * kNanosPerSecond) : Duration::max();
  }
  started_ = true;
  last_ = now;
  tokens_ = tokens;
  return wait;
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

Duration MaxOfRateLimiter::when(const std::string& item) {
  Duration longest{0};
  for (const auto& limiter : limiters_)
    longest = std::max(longest, limiter->when(item));
  return longest;
}

void MaxOfRateLimiter::forget(const std::string& item) {
  for (const auto& limiter : limiters_)
    limiter->forget(item);
}

int MaxOfRateLimiter::num_requeues(const std::string& item) const {
  int most = 0;
  for (const auto& limiter : limiters_)
    most = std::max(most, limiter->num_requeues(item));
  return most;
}

std::unique_ptr<RateLimiter> default_controller_rate_limiter(const Clock& clock) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(
      std::chrono::milliseconds{5}, std::chrono::seconds{1000}));
  limiters.push_back(std::make_unique<BucketRateLimiter>(clock, 10.0, 100));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

}  // namespace respool::runtime
