#pragma once
// Time, injected. Every component that reads the time or waits takes a Clock, so that tests can
// run the operator and the sandbox on one simulated clock (ScaledClock: an hour in a minute) or
// step it by hand (ManualClock: exact unit tests of decisions).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

namespace respool::runtime {

using TimePoint = std::chrono::system_clock::time_point;
using Duration = std::chrono::system_clock::duration;

class Clock {
 public:
  virtual ~Clock() = default;
  // The current time on this clock (wall time: timestamps, leases, records).
  virtual TimePoint now() const = 0;
  // Waits on `cv` (with `lock` held) until `stop()` is true or `deadline` on this clock has
  // passed. Returns stop(). A ManualClock wakes its waiters when it is advanced.
  virtual bool wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                          TimePoint deadline, const std::function<bool()>& stop) = 0;
  bool wait_for(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, Duration d,
                const std::function<bool()>& stop) {
    return wait_until(cv, lock, now() + d, stop);
  }
  // Sleeps the calling thread until `deadline` on this clock.
  void sleep_until(TimePoint deadline);
  void sleep_for(Duration d) { sleep_until(now() + d); }
};

// The system clock.
class RealClock final : public Clock {
 public:
  TimePoint now() const override;
  bool wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                  TimePoint deadline, const std::function<bool()>& stop) override;
};

// Runs `factor` times faster than real time from `start` (the simulated origin). A test may
// also jump it forward (a simulated day passes at once); waiters notice a jump within 100 ms of
// real time, since they wait in slices no longer than that.
class ScaledClock final : public Clock {
 public:
  explicit ScaledClock(double factor, TimePoint start = std::chrono::system_clock::now());
  TimePoint now() const override;
  bool wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                  TimePoint deadline, const std::function<bool()>& stop) override;
  double factor() const { return factor_; }
  void jump(Duration d) { jumped_ += d.count(); }

 private:
  double factor_;
  TimePoint start_;
  std::chrono::steady_clock::time_point real_start_;
  std::atomic<Duration::rep> jumped_{0};
};

// Moves only when told. Waiters are woken on every advance.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start = TimePoint{std::chrono::seconds{1'767'225'600}});
  TimePoint now() const override;
  bool wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                  TimePoint deadline, const std::function<bool()>& stop) override;
  void advance(Duration d);
  void set(TimePoint t);
  // How many threads are inside wait_until (or sleep_until) now: lets a test advance the clock
  // only once the thread it is stepping has started to wait.
  std::size_t waiters() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// The process-wide real clock, for code that was given none.
Clock& real_clock();

}  // namespace respool::runtime
