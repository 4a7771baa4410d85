#pragma once
// What every benchmark shares, whatever it measures: failing loudly (from any thread), the
// source tree's files, medians, and an overall time limit. A benchmark names the phase it is in;
// past its limit it exits non-zero naming that phase, so one that no longer finishes fails its
// smoke test (bench/smoke.sh) instead of waiting forever. Its last line on success is
// "<program>: completed in S s", which the smoke test looks for.
//
// RESPOOL_BENCH_TIME_LIMIT=SECONDS replaces a benchmark's own limit. Not a program.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <expected>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "operator/kube/error.hpp"

namespace respool::bench {

using Steady = std::chrono::steady_clock;

inline const char* program = "bench";

// Exits at once with status 1: safe from any thread (no static destructors run while the
// operator's threads still work).
[[noreturn]] inline void die(const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", program, what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

template <class T>
T must(std::expected<T, kube::Error> r, const char* what) {
  if (!r) die(std::string(what) + ": " + r.error().describe());
  return std::move(*r);
}

inline std::string source(const char* relative) {
  return std::string(RESPOOL_SOURCE_DIR) + "/" + relative;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The overall time limit: a watchdog thread that ends the process past it, naming the phase.
class TimeLimit {
 public:
  static TimeLimit& instance() {
    static TimeLimit limit;
    return limit;
  }
  void start(std::chrono::seconds limit) {
    if (const char* env = std::getenv("RESPOOL_BENCH_TIME_LIMIT"); env && *env) {
      limit = std::chrono::seconds(std::atol(env));
    }
    std::lock_guard lock(mu_);
    began_ = Steady::now();
    limit_ = limit;
    if (watchdog_.joinable()) return;
    watchdog_ = std::thread([this] { watch(); });
  }
  void phase(std::string what) {
    std::lock_guard lock(mu_);
    phase_ = std::move(what);
  }
  double elapsed_s() const {
    std::lock_guard lock(mu_);
    return std::chrono::duration<double>(Steady::now() - began_).count();
  }
  ~TimeLimit() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
  }

 private:
  void watch() {
    std::unique_lock lock(mu_);
    if (cv_.wait_until(lock, began_ + limit_, [this] { return done_; })) return;
    const std::string what = phase_;
    const long limit = static_cast<long>(limit_.count());
    lock.unlock();
    die("over the time limit of " + std::to_string(limit) + " s (RESPOOL_BENCH_TIME_LIMIT) in " +
        "phase: " + what);
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  Steady::time_point began_ = Steady::now();
  std::chrono::seconds limit_{0};
  std::string phase_ = "starting";
  bool done_ = false;
  std::thread watchdog_;
};

// Names the program and starts its time limit.
inline void begin(const char* name, std::chrono::seconds limit) {
  program = name;
  TimeLimit::instance().start(limit);
}

inline void phase(std::string what) {
  TimeLimit::instance().phase(std::move(what));
}

// The closing line.
inline void completed() {
  std::printf("%s: completed in %.1f s\n", program, TimeLimit::instance().elapsed_s());
  std::fflush(stdout);
}

}  // namespace respool::bench
