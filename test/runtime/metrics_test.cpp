#include "operator/runtime/metrics.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <thread>

using respool::runtime::format_metric_value;
using respool::runtime::Registry;

TEST_CASE("sample values are formatted as Go's FormatFloat 'g' -1", "[metrics]") {
  CHECK(format_metric_value(0) == "0");
  CHECK(format_metric_value(-0.0) == "0");
  CHECK(format_metric_value(1) == "1");
  CHECK(format_metric_value(-2.5) == "-2.5");
  CHECK(format_metric_value(0.1) == "0.1");
  CHECK(format_metric_value(0.0001) == "0.0001");
  CHECK(format_metric_value(0.00001) == "1e-05");
  CHECK(format_metric_value(100000) == "100000");
  CHECK(format_metric_value(1e6) == "1e+06");
  CHECK(format_metric_value(1234567) == "1.234567e+06");
  CHECK(format_metric_value(123456.5) == "123456.5");
  CHECK(format_metric_value(1e-300) == "1e-300");
  CHECK(format_metric_value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(format_metric_value(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(format_metric_value(std::nan("")) == "NaN");
}

TEST_CASE("bucket layouts match client_golang's, rounding included", "[metrics]") {
  // The `le` values a real controller-runtime operator exposes for workqueue durations.
  std::vector<std::string> le;
  for (const double b : respool::runtime::workqueue_duration_buckets()) {
    le.push_back(format_metric_value(b));
  }
  CHECK(le == std::vector<std::string>{"1e-08", "1e-07", "1e-06", "9.999999999999999e-06",
                                       "9.999999999999999e-05", "0.001", "0.01", "0.1", "1", "10"});
  const auto reconcile = respool::runtime::reconcile_time_buckets();
  CHECK(reconcile.size() == 40);
  CHECK(reconcile.front() == 0.005);
  CHECK(reconcile.back() == 60);
  CHECK(respool::runtime::default_buckets().size() == 11);
  CHECK(respool::runtime::linear_buckets(1, 2, 3) == std::vector<double>{1, 3, 5});
  CHECK_THROWS_AS(respool::runtime::exponential_buckets(1, 1, 3), std::invalid_argument);
}

TEST_CASE("render writes counters, gauges and histograms in exposition format", "[metrics]") {
  Registry registry;
  auto& reconciles =
      registry.counter("controller_runtime_reconcile_total",
                       "Total number of reconciliations per controller", {"result", "controller"});
  reconciles.with({"success", "resourcepool"})->inc();
  reconciles.with({"success", "resourcepool"})->inc(2);
  reconciles.with({"error", "resourcepool"})->inc();
  registry
      .gauge("controller_runtime_active_workers", "Number of currently used workers",
             {"controller"})
      .with({"resourcepool"})
      ->set(2);
  auto timing =
      registry.histogram("reconcile_seconds", "Time per reconcile", {"controller"}, {0.25, 1})
          .with({"network"});
  timing->observe(0.25);  // on a bound: counts in that bucket
  timing->observe(0.5);
  timing->observe(4);
  registry.counter("plain_total", "No labels");

  CHECK(registry.render() ==
        "# HELP controller_runtime_active_workers Number of currently used workers\n"
        "# TYPE controller_runtime_active_workers gauge\n"
        "controller_runtime_active_workers{controller=\"resourcepool\"} 2\n"
        "# HELP controller_runtime_reconcile_total Total number of reconciliations per "
        "controller\n"
        "# TYPE controller_runtime_reconcile_total counter\n"
        "controller_runtime_reconcile_total{controller=\"resourcepool\",result=\"error\"} 1\n"
        "controller_runtime_reconcile_total{controller=\"resourcepool\",result=\"success\"} 3\n"
        "# HELP plain_total No labels\n"
        "# TYPE plain_total counter\n"
        "plain_total 0\n"
        "# HELP reconcile_seconds Time per reconcile\n"
        "# TYPE reconcile_seconds histogram\n"
        "reconcile_seconds_bucket{controller=\"network\",le=\"0.25\"} 1\n"
        "reconcile_seconds_bucket{controller=\"network\",le=\"1\"} 2\n"
        "reconcile_seconds_bucket{controller=\"network\",le=\"+Inf\"} 3\n"
        "reconcile_seconds_sum{controller=\"network\"} 4.75\n"
        "reconcile_seconds_count{controller=\"network\"} 3\n");
}

TEST_CASE("an unlabelled histogram puts le alone in braces", "[metrics]") {
  Registry registry;
  auto& h = registry.histogram("latency_seconds", "Latency", {},
                               {1, std::numeric_limits<double>::infinity()});
  h.with({})->observe(2);
  CHECK(registry.render() ==
        "# HELP latency_seconds Latency\n"
        "# TYPE latency_seconds histogram\n"
        "latency_seconds_bucket{le=\"1\"} 0\n"
        "latency_seconds_bucket{le=\"+Inf\"} 1\n"
        "latency_seconds_sum 2\n"
        "latency_seconds_count 1\n");
}

TEST_CASE("label values and help text are escaped", "[metrics]") {
  Registry registry;
  registry.gauge("pool_info", "Pools\\with \"quotes\"\nand lines", {"pool"})
      .with({"a\"b\\c\nd"})
      ->set(1);
  CHECK(registry.render() ==
        "# HELP pool_info Pools\\\\with \"quotes\"\\nand lines\n"
        "# TYPE pool_info gauge\n"
        "pool_info{pool=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST_CASE("children are removed, families without children render nothing", "[metrics]") {
  Registry registry;
  auto& nodes = registry.gauge("respool_pool_nodes", "Nodes per pool", {"pool"});
  auto kept = nodes.with({"a"});
  auto gone = nodes.with({"b"});
  kept->set(3);
  gone->set(4);
  CHECK(nodes.size() == 2);
  CHECK(nodes.remove({"b"}));
  CHECK_FALSE(nodes.remove({"b"}));
  gone->inc();  // a held handle stays usable
  CHECK(gone->value() == 5);
  CHECK(registry.render() ==
        "# HELP respool_pool_nodes Nodes per pool\n"
        "# TYPE respool_pool_nodes gauge\n"
        "respool_pool_nodes{pool=\"a\"} 3\n");
  CHECK(nodes.remove({"a"}));
  CHECK(registry.render().empty());
  CHECK(nodes.with({"a"})->value() == 0);  // a new child starts afresh
}

TEST_CASE("registering a name again returns the family or rejects a different one", "[metrics]") {
  Registry registry;
  auto& a = registry.counter("x_total", "X", {"l"});
  CHECK(&registry.counter("x_total", "X", {"l"}) == &a);
  CHECK_THROWS_AS(registry.counter("x_total", "X", {"m"}), std::invalid_argument);
  CHECK_THROWS_AS(registry.counter("x_total", "Other help", {"l"}), std::invalid_argument);
  CHECK_THROWS_AS(registry.gauge("x_total", "X", {"l"}), std::invalid_argument);
  auto& h = registry.histogram("h", "H", {}, {1, 2});
  CHECK(&registry.histogram("h", "H", {}, {1, 2}) == &h);
  CHECK_THROWS_AS(registry.histogram("h", "H", {}, {1, 3}), std::invalid_argument);
}

TEST_CASE("misuse throws", "[metrics]") {
  Registry registry;
  CHECK_THROWS_AS(registry.counter("1bad", "h"), std::invalid_argument);
  CHECK_THROWS_AS(registry.counter("bad-name", "h"), std::invalid_argument);
  CHECK_THROWS_AS(registry.counter("ok", "h", {"__reserved"}), std::invalid_argument);
  CHECK_THROWS_AS(registry.counter("ok2", "h", {"a", "a"}), std::invalid_argument);
  CHECK_THROWS_AS(registry.histogram("h1", "h", {"le"}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(registry.histogram("h2", "h", {}, {2, 1}), std::invalid_argument);
  auto& family = registry.counter("c_total", "h", {"a", "b"});
  CHECK_THROWS_AS(family.with({"only-one"}), std::invalid_argument);
  CHECK_THROWS_AS(family.with({"x", "y"})->inc(-1), std::invalid_argument);
  CHECK(registry.counter("ns:sub_total", "colons are allowed in names").name() == "ns:sub_total");
}

TEST_CASE("collectors set values at scrape time until unregistered", "[metrics]") {
  Registry registry;
  auto gauge = registry.gauge("scraped", "Scrape count").with({});
  int scrapes = 0;
  {
    auto registration = registry.add_collector([&] { gauge->set(++scrapes); });
    CHECK(registry.render().find("scraped 1\n") != std::string::npos);
    CHECK(registry.render().find("scraped 2\n") != std::string::npos);
  }
  CHECK(registry.render().find("scraped 2\n") != std::string::npos);
  CHECK(scrapes == 2);

  // A registration may outlive its registry.
  respool::runtime::CollectorRegistration late;
  {
    Registry short_lived;
    late = short_lived.add_collector([] {});
  }
}

TEST_CASE("metrics are exact under concurrent updates and scrapes", "[metrics]") {
  Registry registry;
  auto& counters = registry.counter("ops_total", "Ops", {"worker"});
  auto& histogram = registry.histogram("op_seconds", "Op time", {}, {0.5});
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        counters.with({std::to_string(t % 2)})->inc();
        histogram.with({})->observe(i % 2 == 0 ? 0.25 : 1.0);
      }
    });
  }
  for (int i = 0; i < 20; ++i)
    CHECK_FALSE(registry.render().empty());
  for (auto& thread : threads)
    thread.join();
  CHECK(counters.with({"0"})->value() == kThreads / 2 * kPerThread);
  CHECK(counters.with({"1"})->value() == kThreads / 2 * kPerThread);
  const auto snap = histogram.with({})->snapshot();
  CHECK(snap.count == kThreads * kPerThread);
  CHECK(snap.cumulative[0] == kThreads * kPerThread / 2);
  CHECK(snap.sum == kThreads * kPerThread / 2 * 1.25);
}
