#pragma once
// The jobs controller (issue 28 item 4; Q1–Q5), keyed by pool:
//   observe  the pool's job pods from the caches, no API read: those on its nodes (pods by
//            node) and those waiting for it (unbound pods indexed by the pool their selector
//            or toleration names, Q1), and the largest free amount of its accelerator
//   decide   policy::pool_jobs (grouping, queue order), policy::jobs_summary (the bounded
//            status.jobs), policy::decide_jobs_write (at most one write per 5 s), and
//            policy::queued_events
//   act      a JSON merge patch of status.jobs alone, not guarded by resourceVersion: status.jobs
//            is recomputed whole from the caches each round and read back by nothing but this
//            controller's change test, so a write over a newer pool loses nothing, and a guard
//            would make it lose races with every pool status write (the pool controller's
//            update keeps status.jobs, and its own write, guarded, is the one that retries)
//   report   Queued events on the Job (or bare Pod)
// Pod events never reconcile at once: jobs_setup.cpp enqueues them after enqueue_delay(), the
// rest of the pool's write interval, so a churning pool costs one reconcile per interval.

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/pool_jobs.hpp"
#include "reconcilers/reconcile_error.hpp"

namespace respool::reconcilers {

// Pods: the pool an unbound job pod waits for (Q1); set by add_jobs_controller.
inline constexpr const char* kByWaitingPool = "waiting-pool";

struct PoolJobsConfig {
  std::chrono::nanoseconds min_interval = policy::kJobsWriteInterval;  // Q4
  std::size_t shown = policy::kJobsShown;                              // Q3
};

class PoolJobsReconciler {
 public:
  PoolJobsReconciler(Context& ctx, PoolJobsConfig config);
  Outcome<runtime::ReconcileResult> reconcile(const std::string& pool);
  // Q4: an event of `pool`: its reconcile waits for the rest of the pool's write interval. A
  // pool already due by then is not added again (each delayed add is a queue retry, in its
  // metrics).
  void enqueue(runtime::WorkQueue& queue, const std::string& pool);

 private:
  struct Memory {
    std::optional<runtime::TimePoint> last_write;
    nlohmann::json written;                         // what the last write put in status.jobs
    std::optional<policy::QueuedMemory> announced;  // Q5; seeded from the status at first
    std::optional<runtime::TimePoint> due;          // a delayed add of the pool not handed out yet
  };
  struct Observation {
    std::vector<policy::JobPod> pods;
    std::string resource;  // the pool's accelerator resource (cpu when it has none)
    apimachinery::Quantity largest_free;
  };
  Observation observe(const kube::Unstructured& pool) const;
  void observe_free(const kube::Unstructured& pool, Observation& o) const;
  Outcome<void> write_status(const kube::Unstructured& pool, const nlohmann::json& wanted);
  void report(const kube::Unstructured& pool, const policy::PoolJobs& jobs, Memory& memory);

  Context& ctx_;
  PoolJobsConfig config_;
  std::mutex mu_;
  std::map<std::string, Memory> memory_;  // by pool
};

}  // namespace respool::reconcilers
