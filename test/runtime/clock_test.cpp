#include "operator/runtime/clock.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "test/runtime/eventually.hpp"

using namespace std::chrono_literals;
using respool::runtime::Clock;
using respool::runtime::ManualClock;
using respool::runtime::RealClock;
using respool::runtime::ScaledClock;
using respool::runtime::TimePoint;
using respool::runtime::test::eventually;

namespace {

// A thread blocked in clock.wait_until with its own mutex and cv, reporting what it saw.
struct Waiter {
  std::mutex mutex;
  std::condition_variable cv;
  bool stop_flag = false;
  std::atomic<bool> returned{false};
  bool result = false;
  TimePoint woke_at{};
  std::thread thread;

  Waiter(Clock& clock, TimePoint deadline) {
    thread = std::thread([this, &clock, deadline] {
      std::unique_lock lock(mutex);
      result = clock.wait_until(cv, lock, deadline, [this] { return stop_flag; });
      woke_at = clock.now();
      returned = true;
    });
  }
  ~Waiter() { thread.join(); }
};

}  // namespace

TEST_CASE("ManualClock moves only when told", "[clock]") {
  const TimePoint start{std::chrono::seconds{1000}};
  ManualClock clock(start);
  CHECK(clock.now() == start);
  clock.advance(90s);
  CHECK(clock.now() == start + 90s);
  clock.set(start + 1h);
  CHECK(clock.now() == start + 1h);

  ManualClock copy = clock;  // copies share one time line
  copy.advance(1s);
  CHECK(clock.now() == start + 1h + 1s);
}

TEST_CASE("ManualClock wakes a waiter when advanced past its deadline, not before", "[clock]") {
  ManualClock clock;
  const TimePoint deadline = clock.now() + 10s;
  Waiter waiter(clock, deadline);
  REQUIRE(eventually([&] { return clock.waiters() == 1; }));

  clock.advance(4s);
  clock.advance(5s);  // 1 s short
  clock.advance(1s);
  REQUIRE(eventually([&] { return waiter.returned.load(); }));
  CHECK_FALSE(waiter.result);
  // It cannot have returned before the clock reached its deadline: it read the time after.
  CHECK(waiter.woke_at == deadline);
  CHECK(clock.waiters() == 0);
}

TEST_CASE("ManualClock::set wakes every due waiter and leaves the others", "[clock]") {
  ManualClock clock;
  const TimePoint t0 = clock.now();
  Waiter early(clock, t0 + 5s);
  Waiter late(clock, t0 + 1h);
  REQUIRE(eventually([&] { return clock.waiters() == 2; }));

  clock.set(t0 + 5s);
  REQUIRE(eventually([&] { return early.returned.load(); }));
  CHECK(early.woke_at >= t0 + 5s);
  CHECK(clock.waiters() == 1);
  CHECK_FALSE(late.returned);

  clock.set(t0 + 2h);
  REQUIRE(eventually([&] { return late.returned.load(); }));
  CHECK_FALSE(late.result);
  CHECK(late.woke_at == t0 + 2h);
}

TEST_CASE("Clock::wait_until returns true when stop() turns true after a notify", "[clock]") {
  ManualClock manual;
  RealClock real;
  Clock* clocks[] = {&manual, &real};
  for (Clock* clock : clocks) {
    Waiter waiter(*clock, clock->now() + 24h);
    {
      std::lock_guard guard(waiter.mutex);
      waiter.stop_flag = true;
    }
    waiter.cv.notify_all();
    REQUIRE(eventually([&] { return waiter.returned.load(); }));
    CHECK(waiter.result);
  }
}

TEST_CASE("Clock::wait_until with a passed deadline returns at once", "[clock]") {
  ManualClock manual;
  RealClock real;
  ScaledClock scaled(60.0);
  Clock* clocks[] = {&manual, &real, &scaled};
  for (Clock* clock : clocks) {
    std::mutex mutex;
    std::condition_variable cv;
    std::unique_lock lock(mutex);
    CHECK_FALSE(clock->wait_until(cv, lock, clock->now() - 1s, [] { return false; }));
    CHECK(clock->wait_until(cv, lock, clock->now() - 1s, [] { return true; }));
  }
}

TEST_CASE("ManualClock::sleep_for returns once the clock has moved that far", "[clock]") {
  ManualClock clock;
  const TimePoint start = clock.now();
  auto sleeper = std::async(std::launch::async, [&] {
    clock.sleep_for(30s);
    return clock.now();
  });
  REQUIRE(eventually([&] { return clock.waiters() == 1; }));
  clock.advance(29s);
  clock.advance(1s);
  REQUIRE(sleeper.wait_for(30s) == std::future_status::ready);
  CHECK(sleeper.get() == start + 30s);
}

TEST_CASE("ScaledClock passes an hour of its time in a fraction of real time", "[clock]") {
  // 1 hour on a clock 36,000 times faster is 0.1 s of real time; the generous bound below only
  // guards against a clock that does not scale at all.
  ScaledClock clock(36000.0);
  CHECK(clock.factor() == 36000.0);
  const TimePoint deadline = clock.now() + 1h;
  auto sleeper = std::async(std::launch::async, [&] {
    clock.sleep_until(deadline);
    return clock.now();
  });
  REQUIRE(sleeper.wait_for(60s) == std::future_status::ready);
  CHECK(sleeper.get() >= deadline);
}

TEST_CASE("ScaledClock starts at the given origin", "[clock]") {
  const TimePoint origin{std::chrono::hours{24 * 365 * 30}};
  ScaledClock clock(2.0, origin);
  const TimePoint now = clock.now();
  CHECK(now >= origin);
  CHECK(now < origin + 1h);
}

TEST_CASE("real_clock is one process-wide RealClock", "[clock]") {
  Clock& a = respool::runtime::real_clock();
  CHECK(&a == &respool::runtime::real_clock());
  const auto diff = a.now() - std::chrono::system_clock::now();
  CHECK(std::chrono::abs(diff) < 1h);
}
