// Performance monitoring (O4, O12): a Job's opt-in and window, the stragglers among its workers'
// log rates, and the report's result.

#include <catch2/catch.hpp>

#include "reconcilers/policy/performance.hpp"
#include "reconcilers/policy/training_job_risk.hpp"

using namespace respool::policy;

namespace {

std::vector<WorkerActivity> workers(std::initializer_list<double> lines) {
  std::vector<WorkerActivity> out;
  int i = 0;
  for (double n : lines) {
    out.push_back({i, "llm-" + std::to_string(i), "gpu-" + std::to_string(i), n, false});
    ++i;
  }
  return out;
}

std::vector<Straggler> find_stragglers_of(const std::vector<WorkerActivity>& a) {
  return find_stragglers(a, Measure::LogLines);
}

std::vector<std::size_t> indexes(const std::vector<Straggler>& stragglers) {
  std::vector<std::size_t> out;
  for (const auto& s : stragglers)
    out.push_back(s.index);
  return out;
}

}  // namespace

TEST_CASE("O12: performance monitoring is asked for per Job, with a window of at least 1m",
          "[policy][performance][rule:O12]") {
  CHECK_FALSE(read_performance_monitoring({}).monitoring);
  CHECK(read_performance_monitoring({}).problem.empty());
  CHECK_FALSE(
      read_performance_monitoring({{kPerformanceMonitoringAnnotation, "false"}}).monitoring);
  auto on = read_performance_monitoring({{kPerformanceMonitoringAnnotation, "true"}});
  REQUIRE(on.monitoring);
  CHECK(on.monitoring->window == std::chrono::minutes(10));
  auto windowed = read_performance_monitoring(
      {{kPerformanceMonitoringAnnotation, "true"}, {kPerformanceWindowAnnotation, "2m30s"}});
  REQUIRE(windowed.monitoring);
  CHECK(windowed.monitoring->window == std::chrono::seconds(150));

  auto yes = read_performance_monitoring({{kPerformanceMonitoringAnnotation, "yes"}});
  CHECK_FALSE(yes.monitoring);
  CHECK(yes.problem ==
        "O12: respool.io/performance-monitoring must be \"true\" or \"false\", not \"yes\"");
  for (const char* bad : {"30s", "10", "1d", "-5m", ""}) {
    auto r = read_performance_monitoring(
        {{kPerformanceMonitoringAnnotation, "true"}, {kPerformanceWindowAnnotation, bad}});
    CHECK_FALSE(r.monitoring);
    CHECK(r.problem ==
          "O12: respool.io/performance-window must be a duration of at least 1m "
          "(such as 10m or 1h), not \"" +
              std::string(bad) + "\"");
  }
}

TEST_CASE("O4: a straggler logs less than half the median of the job's other workers",
          "[policy][performance][rule:O4]") {
  SECTION("one slow worker among eight") {
    auto s = find_stragglers_of(workers({60, 61, 59, 12, 60, 60, 58, 62}));
    REQUIRE(s.size() == 1);
    CHECK(s[0].index == 3);
    CHECK(s[0].others_median == 60);
  }
  SECTION("half of the median is not yet a straggler; just under it is") {
    CHECK(find_stragglers_of(workers({60, 60, 30})).empty());
    CHECK(indexes(find_stragglers_of(workers({60, 60, 29}))) == std::vector<std::size_t>{2});
  }
  SECTION("two workers: the slower is one when far enough below") {
    CHECK(indexes(find_stragglers_of(workers({40, 10}))) == std::vector<std::size_t>{1});
    CHECK(find_stragglers_of(workers({40, 25})).empty());
  }
  SECTION("a job whose workers barely log, or where only rank 0 logs, has none") {
    CHECK(find_stragglers_of(workers({3, 0, 3, 3})).empty());
    CHECK(find_stragglers_of(workers({120, 0, 0, 0, 0, 0, 0, 0})).empty());
  }
  SECTION("a read cut at its bound is never a straggler: it logged at least that much") {
    auto a = workers({900, 900, 150});
    a[2].at_least = true;
    CHECK(find_stragglers(a, Measure::LogLines).empty());
  }
  SECTION("one worker alone, or none, has nothing to be compared with") {
    CHECK(find_stragglers_of(workers({0})).empty());
    CHECK(find_stragglers({}, Measure::LogLines).empty());
  }
  SECTION("every slow worker is named") {
    CHECK(indexes(find_stragglers_of(workers({60, 5, 60, 60, 7, 60}))) ==
          std::vector<std::size_t>{1, 4});
  }
}

TEST_CASE("O4: the straggler's report names the worker, its node and the rates, Medium",
          "[policy][performance][rule:O4]") {
  WorkerActivity w{3, "llm-3-abcde", "gpu-7", 12, false};
  auto r = straggler_result(w, 60.5, std::chrono::minutes(10), Measure::LogLines);
  CHECK(r.risk == Risk::Medium);
  CHECK(r.category == FailureCategory::Environment);
  CHECK(r.fault ==
        "worker 3 (pod llm-3-abcde on node gpu-7) logged 12 lines in 10m0s, the job's other "
        "workers a median of 60.5 (O4: less than half)");
  CHECK(r.symptom.find("straggler") != std::string::npos);
  CHECK(r.device.node == "gpu-7");
  CHECK(r.device.pod == "llm-3-abcde");
  CHECK(r.device.worker == 3);
  CHECK_FALSE(r.solution.empty());
  CHECK(straggler_name("llm-3-abcde") == "llm-3-abcde-straggler");
  CHECK(straggler_name(std::string(250, 'p')).size() <= 253);
}

TEST_CASE(
    "O4: by accelerator use, a straggler is under half the others' median, when they "
    "use theirs at least 10%",
    "[policy][performance][rule:O4]") {
  auto use = workers({96, 94.5, 40, 95});
  auto s = find_stragglers(use, Measure::AcceleratorUse);
  REQUIRE(s.size() == 1);
  CHECK(s[0].index == 2);
  CHECK(s[0].others_median == 95);
  // An idle job (loading data, waiting) has none.
  CHECK(find_stragglers(workers({8, 9, 0.5}), Measure::AcceleratorUse).empty());
  // 4 of 12% is one by use, where 4 of 12 lines would be too (both measures, same share).
  CHECK(find_stragglers(workers({12, 12, 4}), Measure::AcceleratorUse).size() == 1);
  auto r = straggler_result(use[2], 95, std::chrono::minutes(10), Measure::AcceleratorUse);
  CHECK(r.fault ==
        "worker 2 (pod llm-2 on node gpu-2) used its accelerators 40% over 10m0s, the job's other "
        "workers a median of 95% (O4: less than half)");
  CHECK(r.module == "Accelerator use");
}

TEST_CASE("O4, O5: a straggler makes a protected job Medium, and a higher level stays",
          "[policy][performance][rule:O4][rule:O5]") {
  RestartLedger ledger;
  const MonitorFindings straggler{
      .code_error = std::nullopt, .straggler = true, .check_running = false};
  CHECK(training_job_risk(ledger, {}, Risk::NoRisk, straggler) == Risk::Medium);
  CHECK(training_job_risk(ledger, {}, Risk::NoRisk, MonitorFindings{}) == Risk::NoRisk);
  CHECK(training_job_risk(ledger, {}, Risk::High, straggler) == Risk::High);
  CHECK(training_job_risk(
            ledger, {}, Risk::NoRisk,
            MonitorFindings{.code_error = Risk::Low, .straggler = true, .check_running = false}) ==
        Risk::Medium);
}

TEST_CASE(
    "O4: a check compares every running worker once each has run a whole window; a failed "
    "pod kept beside its replacement is neither compared nor waited for",
    "[policy][performance][rule:O4]") {
  const TimePoint now = TimePoint{} + std::chrono::hours(100);
  const auto window = std::chrono::minutes(10);
  auto worker = [](int index, bool running) {
    Worker w;
    w.index = index;
    w.pod = "llm-" + std::to_string(index) + (running ? "" : "-old");
    w.running = running;
    w.failed = !running;
    return w;
  };
  std::vector<Worker> workers{worker(0, true), worker(1, false), worker(1, true), worker(2, true)};
  std::map<int, TimePoint> started{{0, now - std::chrono::minutes(30)},
                                   {1, now - std::chrono::minutes(12)},
                                   {2, now - std::chrono::minutes(20)}};
  auto plan = plan_comparison(workers, started, false, now, window);
  CHECK_FALSE(plan.wait_until);
  CHECK(plan.compared == std::vector<std::size_t>{0, 2, 3});

  // The replacement started 4 minutes ago: no one is compared until it has run 10.
  started[1] = now - std::chrono::minutes(4);
  plan = plan_comparison(workers, started, false, now, window);
  CHECK(plan.compared.empty());
  CHECK(plan.wait_until == now + std::chrono::minutes(6));

  // A restart under way waits (a window at the latest); so does a job of one running worker.
  started[1] = now - std::chrono::minutes(12);
  plan = plan_comparison(workers, started, true, now, window);
  CHECK(plan.compared.empty());
  CHECK(plan.wait_until == now + std::chrono::seconds(1));
  plan = plan_comparison({worker(0, true), worker(1, false)}, started, false, now, window);
  CHECK(plan.compared.empty());
  CHECK(plan.wait_until == now + std::chrono::seconds(1));
  // A worker with no start known (not in the map) counts as starting now.
  plan = plan_comparison({worker(0, true), worker(5, true)}, started, false, now, window);
  CHECK(plan.wait_until == now + window);
}
