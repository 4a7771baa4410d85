#include "operator/runtime/workqueue_metrics.hpp"

#include <catch2/catch.hpp>

#include "operator/runtime/work_queue.hpp"
#include "test/runtime/eventually.hpp"

using namespace std::chrono_literals;
using respool::runtime::ItemExponentialFailureRateLimiter;
using respool::runtime::ManualClock;
using respool::runtime::Registry;
using respool::runtime::WorkQueue;
using respool::runtime::WorkQueueMetrics;

namespace {

const std::string kSeries = R"({controller="resourcepool",name="resourcepool"})";

std::string sample(const std::string& name, const std::string& value) {
  return name + kSeries + " " + value + "\n";
}

// The bucket, sum and count lines of one workqueue duration histogram, from the cumulative
// counts at le = 1e-08 … 10 and +Inf.
std::string histogram(const std::string& name, const std::vector<int>& cumulative,
                      const std::string& sum) {
  static const std::vector<std::string> le{"1e-08",
                                           "1e-07",
                                           "1e-06",
                                           "9.999999999999999e-06",
                                           "9.999999999999999e-05",
                                           "0.001",
                                           "0.01",
                                           "0.1",
                                           "1",
                                           "10",
                                           "+Inf"};
  std::string out;
  for (std::size_t i = 0; i < le.size(); ++i) {
    out += name + "_bucket" + kSeries.substr(0, kSeries.size() - 1) + ",le=\"" + le[i] + "\"} " +
           std::to_string(cumulative[i]) + "\n";
  }
  out += sample(name + "_sum", sum);
  out += sample(name + "_count", std::to_string(cumulative.back()));
  return out;
}

std::string header(const std::string& name, const std::string& help, const std::string& type) {
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

std::string expected_render(int adds, int depth, const std::string& longest,
                            const std::vector<int>& queue_buckets, const std::string& queue_sum,
                            int retries, const std::string& unfinished,
                            const std::vector<int>& work_buckets, const std::string& work_sum) {
  return header("workqueue_adds_total", "Total number of adds handled by workqueue", "counter") +
         sample("workqueue_adds_total", std::to_string(adds)) +
         header("workqueue_depth", "Current depth of workqueue", "gauge") +
         sample("workqueue_depth", std::to_string(depth)) +
         header("workqueue_longest_running_processor_seconds",
                "How many seconds has the longest running processor for workqueue been running.",
                "gauge") +
         sample("workqueue_longest_running_processor_seconds", longest) +
         header("workqueue_queue_duration_seconds",
                "How long in seconds an item stays in workqueue before being requested",
                "histogram") +
         histogram("workqueue_queue_duration_seconds", queue_buckets, queue_sum) +
         header("workqueue_retries_total", "Total number of retries handled by workqueue",
                "counter") +
         sample("workqueue_retries_total", std::to_string(retries)) +
         header("workqueue_unfinished_work_seconds",
                "How many seconds of work has been done that is in progress and hasn't been "
                "observed by work_duration. Large values indicate stuck threads. One can deduce "
                "the number of stuck threads by observing the rate at which this increases.",
                "gauge") +
         sample("workqueue_unfinished_work_seconds", unfinished) +
         header("workqueue_work_duration_seconds",
                "How long in seconds processing an item from workqueue takes.", "histogram") +
         histogram("workqueue_work_duration_seconds", work_buckets, work_sum);
}

const std::vector<int> kNone(11, 0);

}  // namespace

TEST_CASE("a queue's metrics follow a scripted run on a manual clock", "[workqueue][metrics]") {
  Registry registry;
  WorkQueueMetrics provider(registry);
  ManualClock clock;
  WorkQueue queue(clock, std::make_unique<ItemExponentialFailureRateLimiter>(1s, 1h),
                  provider.for_queue("resourcepool"));
  CHECK(registry.render() == expected_render(0, 0, "0", kNone, "0", 0, "0", kNone, "0"));

  queue.add("a");
  queue.add("b");
  queue.add("a");  // deduplicated: not an add
  clock.advance(2s);
  REQUIRE(queue.get() == "a");  // waited 2 s
  clock.advance(3s);
  // a has been processing for 3 s.
  CHECK(registry.render() ==
        expected_render(2, 1, "3", {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, "2", 0, "3", kNone, "0"));

  REQUIRE(queue.get() == "b");  // waited 5 s
  clock.advance(1s);
  // a for 4 s, b for 1 s.
  CHECK(registry.render() ==
        expected_render(2, 0, "4", {0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2}, "7", 0, "5", kNone, "0"));

  queue.done("a");              // worked 4 s
  queue.add_rate_limited("a");  // a retry, waiting for its delay: not yet an add
  queue.add_after("c", 1h);     // another retry
  queue.done("b");              // worked 1 s
  CHECK(registry.render() == expected_render(2, 0, "0", {0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2}, "7", 2,
                                             "0", {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2}, "5"));

  clock.advance(1s);  // a's delay is over: it is added
  REQUIRE(respool::runtime::test::eventually([&] { return queue.len() == 1; }));
  const std::string text = registry.render();
  CHECK(text.find(sample("workqueue_adds_total", "3")) != std::string::npos);
  CHECK(text.find(sample("workqueue_depth", "1")) != std::string::npos);
}

TEST_CASE("two queues on one registry keep their own series", "[workqueue][metrics]") {
  Registry registry;
  WorkQueueMetrics provider(registry);
  WorkQueueMetrics again(registry);  // the same families, registered once
  ManualClock clock;
  WorkQueue pools(clock, nullptr, provider.for_queue("resourcepool"));
  WorkQueue networks(clock, nullptr, again.for_queue("network"));
  pools.add("x");
  networks.add("y");
  networks.add("z");
  const std::string text = registry.render();
  CHECK(text.find("workqueue_depth{controller=\"network\",name=\"network\"} 2\n") !=
        std::string::npos);
  CHECK(text.find("workqueue_depth{controller=\"resourcepool\",name=\"resourcepool\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("a queue destroyed before its registry stops being collected", "[workqueue][metrics]") {
  Registry registry;
  WorkQueueMetrics provider(registry);
  ManualClock clock;
  {
    WorkQueue queue(clock, nullptr, provider.for_queue("gone"));
    queue.add("k");
    REQUIRE(queue.get() == "k");
    clock.advance(7s);
    CHECK(registry.render().find(
              "workqueue_unfinished_work_seconds{controller=\"gone\",name=\"gone\"} 7\n") !=
          std::string::npos);
  }
  clock.advance(1s);
  // Its series keep their last values; nothing runs against the destroyed queue.
  CHECK(registry.render().find(
            "workqueue_unfinished_work_seconds{controller=\"gone\",name=\"gone\"} 7\n") !=
        std::string::npos);
}
