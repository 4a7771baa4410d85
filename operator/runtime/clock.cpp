#include "operator/runtime/clock.hpp"

#include <algorithm>
#include <list>

namespace respool::runtime {

namespace {

using SteadyDuration = std::chrono::steady_clock::duration;

// One real wait never lasts longer than this, so that a deadline far away (TimePoint::max())
// never overflows a conversion and a wall-clock jump is noticed within the hour.
constexpr SteadyDuration kLongestRealWait = std::chrono::hours{1};

// A ManualClock cannot take its waiters' mutexes when it moves (the mover may hold one of them),
// so a notify can slip in between a waiter's check and its wait. Waiting in slices bounds how
// late such a waiter notices.
constexpr SteadyDuration kManualWaitSlice = std::chrono::milliseconds{5};

SteadyDuration real_wait(Duration remaining_on_clock, double factor) {
  using Seconds = std::chrono::duration<double>;
  const double real_seconds =
      std::chrono::duration_cast<Seconds>(remaining_on_clock).count() / factor;
  const double cap = std::chrono::duration_cast<Seconds>(kLongestRealWait).count();
  // Round up: waking a nanosecond early would only cost one more lap of the caller's loop.
  return std::chrono::duration_cast<SteadyDuration>(Seconds{std::min(real_seconds, cap)}) +
         SteadyDuration{1};
}

// Shared by RealClock and ScaledClock: wait on `cv` in real time until `deadline` on `clock`.
bool wait_scaled(const Clock& clock, double factor, std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock, TimePoint deadline,
                 const std::function<bool()>& stop, SteadyDuration slice = SteadyDuration::max()) {
  for (;;) {
    if (stop()) return true;
    const TimePoint now = clock.now();
    if (now >= deadline) return false;
    cv.wait_for(lock, std::min(real_wait(deadline - now, factor), slice));
  }
}

constexpr SteadyDuration kScaledWaitSlice = std::chrono::milliseconds{100};

}  // namespace

void Clock::sleep_until(TimePoint deadline) {
  std::mutex mutex;
  std::condition_variable cv;
  std::unique_lock lock(mutex);
  while (now() < deadline)
    wait_until(cv, lock, deadline, [] { return false; });
}

TimePoint RealClock::now() const {
  return std::chrono::system_clock::now();
}

bool RealClock::wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                           TimePoint deadline, const std::function<bool()>& stop) {
  return wait_scaled(*this, 1.0, cv, lock, deadline, stop);
}

ScaledClock::ScaledClock(double factor, TimePoint start)
    : factor_(factor), start_(start), real_start_(std::chrono::steady_clock::now()) {}

TimePoint ScaledClock::now() const {
  const auto real_elapsed = std::chrono::steady_clock::now() - real_start_;
  const std::chrono::duration<double, std::nano> scaled = real_elapsed * factor_;
  return start_ + std::chrono::duration_cast<Duration>(scaled) + Duration(jumped_.load());
}

bool ScaledClock::wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                             TimePoint deadline, const std::function<bool()>& stop) {
  return wait_scaled(*this, factor_, cv, lock, deadline, stop, kScaledWaitSlice);
}

struct ManualClock::State {
  struct Waiter {
    std::condition_variable* cv;
    TimePoint deadline;
  };

  mutable std::mutex mutex;
  TimePoint now;
  std::list<Waiter> waiters;

  // Wakes every waiter whose deadline has come. Called with `mutex` held, so that a waiter
  // cannot unregister (and its cv go away) while it is being notified.
  void wake_due() {
    for (const Waiter& w : waiters) {
      if (w.deadline <= now) w.cv->notify_all();
    }
  }
};

ManualClock::ManualClock(TimePoint start) : state_(std::make_shared<State>()) {
  state_->now = start;
}

TimePoint ManualClock::now() const {
  std::lock_guard guard(state_->mutex);
  return state_->now;
}

bool ManualClock::wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                             TimePoint deadline, const std::function<bool()>& stop) {
  // Registered for the whole wait, so that advance() and set() can find and wake it.
  struct Registration {
    State& state;
    std::list<State::Waiter>::iterator entry;
    Registration(State& s, std::condition_variable& cv, TimePoint deadline) : state(s) {
      std::lock_guard guard(state.mutex);
      entry = state.waiters.insert(state.waiters.end(), State::Waiter{&cv, deadline});
    }
    ~Registration() {
      std::lock_guard guard(state.mutex);
      state.waiters.erase(entry);
    }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
  } registration(*state_, cv, deadline);

  for (;;) {
    if (stop()) return true;
    if (now() >= deadline) return false;
    cv.wait_for(lock, kManualWaitSlice);
  }
}

void ManualClock::advance(Duration d) {
  std::lock_guard guard(state_->mutex);
  state_->now += d;
  state_->wake_due();
}

void ManualClock::set(TimePoint t) {
  std::lock_guard guard(state_->mutex);
  state_->now = t;
  state_->wake_due();
}

std::size_t ManualClock::waiters() const {
  std::lock_guard guard(state_->mutex);
  return state_->waiters.size();
}

Clock& real_clock() {
  static RealClock clock;
  return clock;
}

}  // namespace respool::runtime
