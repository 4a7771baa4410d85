#include "operator/runtime/rate_limiter.hpp"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using respool::runtime::BucketRateLimiter;
using respool::runtime::Duration;
using respool::runtime::ItemExponentialFailureRateLimiter;
using respool::runtime::ManualClock;
using respool::runtime::MaxOfRateLimiter;
using respool::runtime::RateLimiter;

TEST_CASE("exponential limiter doubles per failure of one item, from 5 ms", "[rate-limiter]") {
  ItemExponentialFailureRateLimiter limiter(5ms, 1000s);
  CHECK(limiter.num_requeues("a") == 0);
  CHECK(limiter.when("a") == 5ms);
  CHECK(limiter.when("a") == 10ms);
  CHECK(limiter.when("a") == 20ms);
  CHECK(limiter.when("a") == 40ms);
  CHECK(limiter.num_requeues("a") == 4);

  // Items back off independently.
  CHECK(limiter.when("b") == 5ms);
  CHECK(limiter.num_requeues("b") == 1);

  limiter.forget("a");
  CHECK(limiter.num_requeues("a") == 0);
  CHECK(limiter.when("a") == 5ms);
  CHECK(limiter.when("b") == 10ms);
}

TEST_CASE("exponential limiter caps at its maximum and never overflows", "[rate-limiter]") {
  ItemExponentialFailureRateLimiter limiter(1ms, 1s);
  Duration expected = 1ms;
  for (int i = 0; i < 10; ++i, expected *= 2)
    CHECK(limiter.when("x") == expected);
  CHECK(expected == 1024ms);
  CHECK(limiter.when("x") == 1s);

  // 5 ms · 2^2000 is far beyond any duration: still the cap.
  ItemExponentialFailureRateLimiter controller(5ms, 1000s);
  Duration last{};
  for (int i = 0; i < 2000; ++i)
    last = controller.when("y");
  CHECK(last == 1000s);
  CHECK(controller.num_requeues("y") == 2000);
}

TEST_CASE("bucket limiter lets a burst through, then spaces tokens at 1/qps", "[rate-limiter]") {
  ManualClock clock;
  BucketRateLimiter limiter(clock, 10.0, 100);
  for (int i = 0; i < 100; ++i)
    REQUIRE(limiter.when("item" + std::to_string(i)) == 0ms);
  CHECK(limiter.when("a") == 100ms);
  CHECK(limiter.when("a") == 200ms);  // the bucket is shared, not per item
  CHECK(limiter.num_requeues("a") == 0);

  clock.advance(100ms);  // one token back: still one short of the next
  CHECK(limiter.when("b") == 200ms);

  clock.advance(1h);  // refills to the burst and no more
  for (int i = 0; i < 100; ++i)
    REQUIRE(limiter.when("c") == 0ms);
  CHECK(limiter.when("c") == 100ms);
}

TEST_CASE("bucket limiter computes fractional delays as x/time/rate does", "[rate-limiter]") {
  ManualClock clock;
  BucketRateLimiter limiter(clock, 3.0, 1);
  CHECK(limiter.when("a") == 0ns);
  CHECK(limiter.when("a") == 333'333'333ns);  // 1/3 s, truncated to the nanosecond
  clock.advance(1ms);                         // 0.003 tokens back: 1.997 owed
  CHECK(limiter.when("a") == 665'666'666ns);

  // A clock that steps back refills nothing and breaks nothing.
  clock.advance(-1h);
  CHECK(limiter.when("a") == 999ms);  // 2.997 owed
}

TEST_CASE("max-of limiter returns the longest delay and forgets in all", "[rate-limiter]") {
  ManualClock clock;
  const auto limiter = respool::runtime::default_controller_rate_limiter(clock);
  // The first 100 failures fit in the bucket: the per-item backoff decides.
  CHECK(limiter->when("pool-a") == 5ms);
  CHECK(limiter->when("pool-a") == 10ms);
  CHECK(limiter->num_requeues("pool-a") == 2);
  for (int i = 0; i < 98; ++i)
    REQUIRE(limiter->when("other" + std::to_string(i)) == 5ms);
  // The bucket is empty now: 100 ms beats a fresh item's 5 ms.
  CHECK(limiter->when("pool-b") == 100ms);
  limiter->forget("pool-a");
  CHECK(limiter->num_requeues("pool-a") == 0);
  CHECK(limiter->when("pool-a") == 200ms);

  std::vector<std::unique_ptr<RateLimiter>> parts;
  parts.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(1s, 1h));
  parts.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(1ms, 1h));
  MaxOfRateLimiter max_of(std::move(parts));
  CHECK(max_of.when("k") == 1s);
  CHECK(max_of.when("k") == 2s);
  CHECK(max_of.num_requeues("k") == 2);
  max_of.forget("k");
  CHECK(max_of.num_requeues("k") == 0);
}
