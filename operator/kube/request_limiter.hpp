#pragma once
// The client-side QPS limiter (client-go's flowcontrol token bucket): at most `qps` requests
// per second on average, with bursts of `burst`. qps <= 0 disables it.

#include <chrono>
#include <mutex>

namespace respool::kube {

class RequestLimiter {
 public:
  RequestLimiter(double qps, int burst);
  // Blocks until the request may go.
  void acquire();

 private:
  using Clock = std::chrono::steady_clock;
  double qps_;
  double burst_;
  std::mutex mu_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace respool::kube
