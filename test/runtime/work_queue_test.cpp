#include "operator/runtime/work_queue.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <random>
#include <set>
#include <thread>

#include "test/runtime/eventually.hpp"

using namespace std::chrono_literals;
using respool::runtime::ItemExponentialFailureRateLimiter;
using respool::runtime::ManualClock;
using respool::runtime::WorkQueue;
using respool::runtime::test::eventually;

TEST_CASE("a key added several times while queued is handed out once", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add("a");
  queue.add("b");
  queue.add("a");
  CHECK(queue.len() == 2);
  CHECK(queue.get() == "a");
  CHECK(queue.get() == "b");
  CHECK(queue.len() == 0);
}

TEST_CASE("a key re-added while processing is queued again only after done", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add("pool-a");
  REQUIRE(queue.get() == "pool-a");
  queue.add("pool-a");
  queue.add("pool-a");
  CHECK(queue.len() == 0);  // not available to a second worker

  queue.done("pool-a");
  CHECK(queue.len() == 1);  // once, however often it was added
  REQUIRE(queue.get() == "pool-a");
  queue.done("pool-a");
  CHECK(queue.len() == 0);

  queue.done("pool-a");  // a stray done changes nothing
  queue.done("never-got");
  CHECK(queue.len() == 0);
}

TEST_CASE("get blocks until a key is added", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  auto getter = std::async(std::launch::async, [&] { return queue.get(); });
  queue.add("x");
  REQUIRE(getter.wait_for(30s) == std::future_status::ready);
  CHECK(getter.get() == "x");
}

TEST_CASE("no two workers ever hold one key, and every add is followed by a processing",
          "[workqueue][stress]") {
  ManualClock clock;
  WorkQueue queue(clock);
  constexpr int kKeys = 16;
  constexpr int kAddsPerProducer = 20000;
  std::mutex book_mutex;
  std::set<std::string> in_flight;
  std::map<std::string, long> last_add;
  std::map<std::string, long> last_start;
  long ticks = 0;
  std::atomic<int> overlaps{0};

  std::vector<std::thread> workers;
  for (int w = 0; w < 6; ++w) {
    workers.emplace_back([&] {
      while (auto key = queue.get()) {
        {
          std::lock_guard guard(book_mutex);
          if (!in_flight.insert(*key).second) ++overlaps;
          last_start[*key] = ++ticks;
        }
        std::this_thread::yield();
        {
          std::lock_guard guard(book_mutex);
          in_flight.erase(*key);
        }
        queue.done(*key);
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < 2; ++p) {
    producers.emplace_back([&, p] {
      std::mt19937 random(p);
      for (int i = 0; i < kAddsPerProducer; ++i) {
        const std::string key = "k" + std::to_string(random() % kKeys);
        {
          std::lock_guard guard(book_mutex);
          last_add[key] = ++ticks;
        }
        queue.add(key);
      }
    });
  }
  for (auto& producer : producers)
    producer.join();
  // Everything added so far is still handed out after shutdown; then the workers end.
  queue.shutdown();
  for (auto& worker : workers)
    worker.join();

  CHECK(overlaps == 0);
  CHECK(last_add.size() == kKeys);
  for (const auto& [key, added] : last_add) {
    INFO(key);
    CHECK(last_start[key] > added);
  }
}

TEST_CASE("add_after queues keys when their delay has passed, earliest first", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add_after("c", 3s);
  queue.add_after("a", 1s);
  queue.add_after("b", 2s);
  queue.add_after("a", 5s);     // later than the pending add: ignored
  queue.add_after("b", 500ms);  // earlier: wins
  queue.add_after("now", 0s);   // no delay: queued at once
  CHECK(queue.len() == 1);
  CHECK(queue.waiting() == 3);
  REQUIRE(queue.get() == "now");

  clock.advance(500ms);
  REQUIRE(eventually([&] { return queue.len() == 1; }));
  CHECK(queue.waiting() == 2);
  CHECK(queue.get() == "b");

  clock.advance(499ms);
  CHECK(queue.len() == 0);
  clock.advance(1ms);
  REQUIRE(eventually([&] { return queue.len() == 1; }));
  CHECK(queue.waiting() == 1);
  CHECK(queue.get() == "a");

  clock.advance(1h);
  REQUIRE(eventually([&] { return queue.len() == 1; }));
  CHECK(queue.waiting() == 0);
  CHECK(queue.get() == "c");
}

TEST_CASE("keys due at the same time are queued in the order they were added", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  for (const char* key : {"x", "y", "z"})
    queue.add_after(key, 1s);
  clock.advance(1s);
  REQUIRE(eventually([&] { return queue.len() == 3; }));
  CHECK(queue.get() == "x");
  CHECK(queue.get() == "y");
  CHECK(queue.get() == "z");
}

TEST_CASE("a delayed key that is already queued is not queued twice", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add("a");
  queue.add_after("a", 1s);
  clock.advance(1s);
  REQUIRE(eventually([&] { return queue.waiting() == 0; }));
  CHECK(queue.len() == 1);
}

TEST_CASE("add_rate_limited backs off per key until forget", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock, std::make_unique<ItemExponentialFailureRateLimiter>(1s, 1h));
  queue.add_rate_limited("a");
  CHECK(queue.num_requeues("a") == 1);
  CHECK(queue.waiting() == 1);
  clock.advance(1s);
  REQUIRE(eventually([&] { return queue.len() == 1; }));
  REQUIRE(queue.get() == "a");
  queue.done("a");

  queue.add_rate_limited("a");  // second failure: 2 s
  CHECK(queue.num_requeues("a") == 2);
  clock.advance(1s);
  CHECK(queue.waiting() == 1);
  clock.advance(1s);
  REQUIRE(eventually([&] { return queue.len() == 1; }));
  REQUIRE(queue.get() == "a");
  queue.forget("a");
  queue.done("a");
  CHECK(queue.num_requeues("a") == 0);

  queue.add_rate_limited("a");  // starts over at 1 s
  clock.advance(1s);
  REQUIRE(eventually([&] { return queue.len() == 1; }));
}

TEST_CASE("the default rate limiter is used when none is given", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add_rate_limited("a");
  CHECK(queue.num_requeues("a") == 1);
  clock.advance(5ms);
  REQUIRE(eventually([&] { return queue.len() == 1; }));
}

TEST_CASE("shutdown wakes waiting getters and ignores later adds", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  auto getter = std::async(std::launch::async, [&] { return queue.get(); });
  REQUIRE_FALSE(queue.shutting_down());
  queue.shutdown();
  REQUIRE(getter.wait_for(30s) == std::future_status::ready);
  CHECK(getter.get() == std::nullopt);
  CHECK(queue.shutting_down());

  queue.add("late");
  queue.add_after("later", 1s);
  queue.add_rate_limited("latest");
  CHECK(queue.len() == 0);
  CHECK(queue.waiting() == 0);
  CHECK(queue.get() == std::nullopt);
}

TEST_CASE("after shutdown, get still hands out what was queued before it", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add("a");
  queue.add("b");
  queue.shutdown();
  CHECK(queue.get() == "a");
  CHECK(queue.get() == "b");
  CHECK(queue.get() == std::nullopt);
}

TEST_CASE("shutdown_with_drain returns once every key handed out is done", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add("a");
  queue.add("b");
  REQUIRE(queue.get() == "a");
  REQUIRE(queue.get() == "b");

  std::atomic<int> dones{0};
  auto drain = std::async(std::launch::async, [&] {
    queue.shutdown_with_drain();
    return dones.load();
  });
  REQUIRE(eventually([&] { return queue.shutting_down(); }));
  queue.add("c");  // ignored: the queue is shutting down
  // Give a drain that returns too early every chance to show it.
  std::this_thread::sleep_for(20ms);
  ++dones;
  queue.done("a");
  std::this_thread::sleep_for(20ms);
  ++dones;
  queue.done("b");
  REQUIRE(drain.wait_for(30s) == std::future_status::ready);
  CHECK(drain.get() == 2);
  CHECK(queue.get() == std::nullopt);
}

TEST_CASE("shutdown calls off a drain that is waiting", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.add("stuck");
  REQUIRE(queue.get() == "stuck");
  auto drain = std::async(std::launch::async, [&] { queue.shutdown_with_drain(); });
  REQUIRE(eventually([&] { return queue.shutting_down(); }));
  queue.shutdown();
  CHECK(drain.wait_for(30s) == std::future_status::ready);
  queue.done("stuck");
}

TEST_CASE("a queue with nothing in flight drains at once", "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  queue.shutdown_with_drain();
  CHECK(queue.shutting_down());
}

TEST_CASE("a getter waiting on an empty queue receives a delayed key when it is due",
          "[workqueue]") {
  ManualClock clock;
  WorkQueue queue(clock);
  auto getter = std::async(std::launch::async, [&] { return queue.get(); });
  queue.add_after("later", 10s);
  clock.advance(10s);
  REQUIRE(getter.wait_for(30s) == std::future_status::ready);
  CHECK(getter.get() == "later");
}

TEST_CASE("on the real clock, delayed keys arrive and pending ones do not hold up destruction",
          "[workqueue]") {
  respool::runtime::RealClock clock;
  auto getter_result = std::optional<std::string>{};
  {
    WorkQueue queue(clock);
    queue.add_after("soon", 10ms);
    queue.add_after("next-hour", 1h);
    auto getter = std::async(std::launch::async, [&] { return queue.get(); });
    REQUIRE(getter.wait_for(30s) == std::future_status::ready);
    getter_result = getter.get();
    CHECK(queue.waiting() == 1);
  }  // the delay thread is waiting for the next hour: destruction must still return
  CHECK(getter_result == "soon");
}
