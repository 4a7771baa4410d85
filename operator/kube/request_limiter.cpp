#include "operator/kube/request_limiter.hpp"

#include <algorithm>
#include <thread>

namespace respool::kube {

RequestLimiter::RequestLimiter(double qps, int burst)
    : qps_(qps), burst_(std::max(1, burst)), tokens_(std::max(1, burst)), last_(Clock::now()) {}

void RequestLimiter::acquire() {
  if (qps_ <= 0) return;
  Clock::duration wait{};
  {
    std::lock_guard lock(mu_);
    auto now = Clock::now();
    tokens_ = std::min(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
    last_ = now;
    // Take the token now, even into debt, so that waiters are served in arrival order.
    tokens_ -= 1;
    if (tokens_ < 0) {
      wait = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(-tokens_ / qps_));
    }
  }
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
}

}  // namespace respool::kube
