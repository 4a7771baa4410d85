#pragma once
// A pool's jobs and its queue (issue 28 item 4, from 001 "Viewing Jobs"; rules Q1–Q5): which
// pods are the pool's jobs, running or waiting (Q1), the order the default scheduler's queue
// takes the waiting ones in (Q2), the bounded summary in status.jobs (Q3), how often it is
// written (Q4) and the Queued events (Q5). Pure: the jobs controller (reconcilers/jobs/) reads
// the caches and the clock and hands them in.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apimachinery/quantity.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// Q1: the pool a pod that is not on a node yet waits for: the one its nodeSelector or required
// node affinity names (`respool.io/pool`), else the one whose dedicated taint it tolerates
// (`respool.io/pool=<name>`, operator Equal). "" when neither: not a job of any pool.
std::string pool_waited_for(std::string_view selected, std::string_view tolerated);

// One pod of a pool's jobs as the queue reads it; the caller has kept only live pods of the
// pool (Q1: not terminal, not a DaemonSet's, matching the job selector).
struct JobPod {
  std::string ns, name, uid;
  // The controlling owner (a Job, or another controller); empty for a bare pod.
  std::string owner_kind, owner_name, owner_uid;
  std::int32_t priority = 0;
  TimePoint created{};
  bool waiting = false;              // not bound to a node: in the scheduler's queue
  apimachinery::Quantity request{};  // of the pool's accelerator resource
};

// A job that waits: every pod of one owner (or one bare pod) with a pod in the queue.
struct QueuedJob {
  std::string kind, ns, name, uid;
  std::int32_t priority = 0;         // its oldest waiting pod's
  TimePoint since{};                 // its oldest waiting pod's creation
  int pods = 0;                      // its waiting pods
  apimachinery::Quantity request{};  // what its waiting pods ask of the resource, summed
};

struct PoolJobs {
  int running = 0;               // jobs with pods on nodes and none waiting
  std::vector<QueuedJob> queue;  // every waiting job, in queue order (Q2)
};

// Q2: the default scheduler's active queue order: priority descending, then the earlier
// creation; namespace and name break the remaining ties, so that the order is stable.
bool queued_before(const QueuedJob& a, const QueuedJob& b);

// Q1 and Q2: the pods grouped into jobs (one per owner, a bare pod alone); a job with a waiting
// pod is pending, counted once by its oldest waiting pod; the rest, with a pod on a node, run.
PoolJobs pool_jobs(const std::vector<JobPod>& pods);

// What the summary says a job waits for: `16 nvidia.com/gpu, largest free 8`. "" when its
// waiting pods ask nothing of the resource.
std::string waiting_for(const QueuedJob& job, std::string_view resource,
                        const apimachinery::Quantity& largest_free);

// Q3: status.jobs: running and pending counts and the first `limit` waiting jobs with their
// 1-based position. The same pool gives the same JSON (no times of its own), so that an
// unchanged pool writes nothing.
inline constexpr std::size_t kJobsShown = 20;
nlohmann::json jobs_summary(const PoolJobs& jobs, std::string_view resource,
                            const apimachinery::Quantity& largest_free,
                            std::size_t limit = kJobsShown);

// Q4: a pool's status.jobs is written only when it changed, and at most once per
// `min_interval` (5 s): a change within the interval waits for its end, and every change of
// that wait goes out in that one write.
inline constexpr std::chrono::seconds kJobsWriteInterval{5};
struct JobsWrite {
  enum class Kind { Nothing, Now, Later } kind = Kind::Nothing;
  std::chrono::nanoseconds wait{};  // Later: how long until the interval ends
};
JobsWrite decide_jobs_write(bool changed, std::optional<TimePoint> last_write, TimePoint now,
                            std::chrono::nanoseconds min_interval = kJobsWriteInterval);
// Q4: how long a pod or pool event's reconcile waits: until the pool's interval ends (0 when no
// write is recent), so that 50 pod events a second make one reconcile per interval.
std::chrono::nanoseconds jobs_enqueue_delay(
    std::optional<TimePoint> last_write, TimePoint now,
    std::chrono::nanoseconds min_interval = kJobsWriteInterval);

// Q5: the Queued events. `announced` maps each waiting job (queued_key: kind/namespace/name, as
// the status names it) to whether it was already told it is at the front; a job not in it was
// never told it waits.
std::string queued_key(const QueuedJob& job);
using QueuedMemory = std::map<std::string, bool>;
struct QueuedEvent {
  QueuedJob job;
  int position = 0;
  std::string message;
};
struct QueuedEvents {
  std::vector<QueuedEvent> events;
  QueuedMemory memory;  // the waiting jobs only: one that stops waiting is forgotten
};
QueuedEvents queued_events(const std::vector<QueuedJob>& queue, const QueuedMemory& announced,
                           std::string_view pool);
// What a written status.jobs tells a restarted operator: the jobs it shows were announced (and
// the one at position 1 at the front).
QueuedMemory queued_memory_from_status(const nlohmann::json& jobs);

}  // namespace respool::policy
