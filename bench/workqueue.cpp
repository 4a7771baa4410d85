// Work-queue throughput: 8 workers cycle 10,000 keys through add → get → done until 1,000,000
// operations are done; prints operations per second (median of 5 runs), without metrics and
// with the workqueue_* metrics a controller keeps.
//
// Every operation does real work: the queue starts with all keys queued, and each worker re-adds
// the key it has just finished, so no add is swallowed by deduplication.
//
//   build/bench/bench_workqueue [OPERATIONS=1000000 [RUNS=5]]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "operator/runtime/metrics.hpp"
#include "operator/runtime/work_queue.hpp"
#include "operator/runtime/workqueue_metrics.hpp"

namespace {

using respool::runtime::QueueMetricsFactory;
using respool::runtime::WorkQueue;

constexpr int kWorkers = 8;
constexpr int kKeys = 10'000;
long operations_per_run = 1'000'000;  // from the command line
int runs = 5;

// One run; returns operations per second.
double run(const QueueMetricsFactory& metrics) {
  WorkQueue queue(respool::runtime::real_clock(), nullptr, metrics);
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i)
    keys.push_back("pool-" + std::to_string(i));

  // Each cycle (add, get, done) is three operations: kKeys first adds, then re-adds until the
  // cycles add up to operations_per_run.
  const long cycles = operations_per_run / 3;
  std::atomic<long> readds_left{cycles - kKeys};
  std::atomic<long> cycles_done{0};

  const auto start = std::chrono::steady_clock::now();
  for (const auto& key : keys)
    queue.add(key);
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (auto key = queue.get()) {
        queue.done(*key);
        if (readds_left.fetch_sub(1, std::memory_order_relaxed) > 0) queue.add(*key);
        if (cycles_done.fetch_add(1, std::memory_order_relaxed) + 1 == cycles) queue.shutdown();
      }
    });
  }
  for (auto& worker : workers)
    worker.join();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return static_cast<double>(cycles * 3) / elapsed.count();
}

double median_of_runs(const char* label, const QueueMetricsFactory& metrics) {
  std::vector<double> rates;
  for (int i = 0; i < runs; ++i)
    rates.push_back(run(metrics));
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[runs / 2];
  std::printf("  %-16s %12.0f ops/s   (runs:", label, median);
  for (const double r : rates)
    std::printf(" %.0f", r);
  std::printf(")\n");
  return median;
}

}  // namespace

int main(int argc, char** argv) {
  respool::bench::begin("bench_workqueue", std::chrono::minutes(10));
  if (argc > 1) operations_per_run = std::atol(argv[1]);
  if (argc > 2) runs = std::atoi(argv[2]);
  if (operations_per_run < 3L * kKeys || runs < 1) {
    respool::bench::die("OPERATIONS: at least 30000; RUNS: at least 1");
  }
  std::printf(
      "workqueue: %d workers, %d keys, %ld operations (adds+gets+dones) per run, median of %d "
      "runs, %u hardware threads\n",
      kWorkers, kKeys, operations_per_run / 3 * 3, runs, std::thread::hardware_concurrency());
  median_of_runs("without metrics", {});
  respool::runtime::Registry registry;
  respool::runtime::WorkQueueMetrics provider(registry);
  median_of_runs("with metrics", provider.for_queue("bench"));
  respool::bench::completed();
  return 0;
}
