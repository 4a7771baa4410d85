#pragma once
// How long a work-queue item waits before it is retried: client-go's workqueue rate limiters.
// All are thread-safe; all that read the time take a Clock.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "operator/runtime/clock.hpp"

namespace respool::runtime {

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // How long `item` should wait now; counts one more failure of it where the limiter counts.
  virtual Duration when(const std::string& item) = 0;
  // Stops tracking `item` (it succeeded): its next failure starts from the beginning.
  virtual void forget(const std::string& item) = 0;
  // How many times `item` has been requeued since it was last forgotten.
  virtual int num_requeues(const std::string& item) const = 0;
};

// Per item: base, 2·base, 4·base, … capped at max_delay (client-go
// ItemExponentialFailureRateLimiter).
class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  ItemExponentialFailureRateLimiter(Duration base_delay, Duration max_delay);
  Duration when(const std::string& item) override;
  void forget(const std::string& item) override;
  int num_requeues(const std::string& item) const override;

 private:
  Duration base_delay_;
  Duration max_delay_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, int> failures_;
};

// One token bucket for all items: `qps` tokens a second, at most `burst` saved up. Each when()
// reserves a token and returns how long until it is available, exactly as
// golang.org/x/time/rate's Limiter.Reserve().Delay() (client-go BucketRateLimiter).
class BucketRateLimiter final : public RateLimiter {
 public:
  BucketRateLimiter(const Clock& clock, double qps, int burst);
  Duration when(const std::string& item) override;
  void forget(const std::string&) override {}
  int num_requeues(const std::string&) const override { return 0; }

 private:
  const Clock& clock_;
  double qps_;
  int burst_;
  std::mutex mutex_;
  double tokens_;
  TimePoint last_{};
  bool started_ = false;
};

// The longest delay of several limiters (client-go MaxOfRateLimiter). Every limiter sees every
// call, so each keeps counting.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);
  Duration when(const std::string& item) override;
  void forget(const std::string& item) override;
  int num_requeues(const std::string& item) const override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// client-go's DefaultTypedControllerRateLimiter: per-item exponential backoff from 5 ms to
// 1000 s, and an overall bucket of 10 qps with a burst of 100; the longer delay wins.
std::unique_ptr<RateLimiter> default_controller_rate_limiter(const Clock& clock);

}  // namespace respool::runtime
