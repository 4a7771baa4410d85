// Controller overhead: no-op reconciles per second over 10,000 keys. A Controller with the
// controller_runtime_* and workqueue_* metrics runs a reconciler that does nothing; every key is
// enqueued, reconciled, and enqueued again for 20 rounds (200,000 reconciles per run). Prints
// the median of 5 runs for 1, 2 and 8 workers, with the per-reconcile log line off (level
// warn) and on (level info, JSON; run with 2>/dev/null so the terminal does not set the pace).
//
//   build/bench/bench_reconcile_noop [ROUNDS=20 [RUNS=5]] 2>/dev/null

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "operator/runtime/controller.hpp"
#include "operator/runtime/log.hpp"
#include "operator/runtime/metrics.hpp"
#include "operator/runtime/workqueue_metrics.hpp"

namespace {

using namespace respool::runtime;

constexpr int kKeys = 10'000;
int rounds = 20;  // from the command line
int runs = 5;

double run(int workers) {
  Registry registry;
  ControllerMetrics controller_metrics(registry);
  WorkQueueMetrics queue_metrics(registry);
  std::atomic<long> done{0};
  std::mutex mu;
  std::condition_variable round_done;
  Controller controller(
      real_clock(),
      [&](const std::string&) -> std::expected<ReconcileResult, std::string> {
        // The last reconcile of a round wakes the feeder.
        if ((done.fetch_add(1, std::memory_order_relaxed) + 1) % kKeys == 0) {
          std::lock_guard lock(mu);
          round_done.notify_all();
        }
        return ReconcileResult::done();
      },
      ControllerOptions{.name = "bench",
                        .workers = workers,
                        .metrics = &controller_metrics,
                        .queue_metrics = &queue_metrics,
                        .rate_limiter = nullptr});
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i)
    keys.push_back("pool-" + std::to_string(i));
  controller.start();
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < rounds; ++round) {
    // The next round starts once this one is through, so that no add is deduplicated away.
    for (const auto& key : keys)
      controller.enqueue(key);
    std::unique_lock lock(mu);
    round_done.wait(lock, [&] { return done.load() >= static_cast<long>(kKeys) * (round + 1); });
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  controller.stop();
  return static_cast<double>(kKeys) * rounds / elapsed.count();
}

void report(const char* label, int workers) {
  std::vector<double> rates;
  for (int i = 0; i < runs; ++i)
    rates.push_back(run(workers));
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  std::printf("  %-22s %d workers %10.0f reconciles/s   (runs:", label, workers, sorted[runs / 2]);
  for (double r : rates)
    std::printf(" %.0f", r);
  std::printf(")\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  respool::bench::begin("bench_reconcile_noop", std::chrono::minutes(20));
  if (argc > 1) rounds = std::atoi(argv[1]);
  if (argc > 2) runs = std::atoi(argv[2]);
  if (rounds < 1 || runs < 1) respool::bench::die("ROUNDS and RUNS: at least 1");
  std::printf(
      "no-op reconciles: %d keys x %d rounds per run, median of %d runs, %u hardware threads\n",
      kKeys, rounds, runs, std::thread::hardware_concurrency());
  log::configure(log::Format::Json, log::Level::Warn);
  respool::bench::phase("log off");
  for (int w : {1, 2, 8})
    report("log off (level warn)", w);
  respool::bench::phase("log on");
  log::configure(log::Format::Json, log::Level::Info);
  for (int w : {1, 2, 8})
    report("log on (level info)", w);
  respool::bench::completed();
  return 0;
}
