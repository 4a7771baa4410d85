// A pool's jobs and queue (issue 28 item 4, Q1–Q5): which pods are the pool's jobs, the
// default scheduler's order (priority, then creation; a preempting job jumps ahead), the bounded
// status.jobs, the write cadence (coalescing within 5 s) and the Queued events.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/pool_jobs.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::apimachinery::Quantity;
using respool::policy::test::kT0;
using namespace std::chrono_literals;

namespace {

// A waiting pod of Job `job` (a bare pod when `job` is empty).
JobPod waiting(const std::string& name, std::int32_t priority, TimePoint created,
               const std::string& job = "", std::int64_t gpus = 8) {
  JobPod p;
  p.ns = "team-a";
  p.name = name;
  p.uid = "uid-" + name;
  if (!job.empty()) {
    p.owner_kind = "Job";
    p.owner_name = job;
    p.owner_uid = "uid-job-" + job;
  }
  p.priority = priority;
  p.created = created;
  p.waiting = true;
  p.request = Quantity::from_units(gpus);
  return p;
}

JobPod running(const std::string& name, const std::string& job = "") {
  JobPod p = waiting(name, 0, kT0, job);
  p.waiting = false;
  return p;
}

std::vector<std::string> names(const PoolJobs& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs.queue)
    out.push_back(j.name);
  return out;
}

}  // namespace

TEST_CASE("a pod waits for the pool its selector names, else the one whose taint it tolerates",
          "[rule:Q1]") {
  CHECK(pool_waited_for("gpu-a", "") == "gpu-a");
  CHECK(pool_waited_for("gpu-a", "gpu-b") == "gpu-a");  // the selector is where it can go
  CHECK(pool_waited_for("", "gpu-b") == "gpu-b");
  CHECK(pool_waited_for("", "").empty());
}

TEST_CASE("jobs are grouped by owner; one with a waiting pod is pending, counted once",
          "[rule:Q1]") {
  std::vector<JobPod> pods = {
      running("train-0", "train"),
      running("train-1", "train"),
      running("bare-running"),
      waiting("big-0", 0, kT0 + 10s, "big"),
      waiting("big-1", 0, kT0 + 5s, "big"),
      running("mixed-0", "mixed"),
      waiting("mixed-1", 0, kT0 + 20s, "mixed"),
      waiting("bare", 0, kT0 + 30s),
  };
  PoolJobs jobs = pool_jobs(pods);
  CHECK(jobs.running == 2);  // train, bare-running
  REQUIRE(jobs.queue.size() == 3);
  CHECK(names(jobs) == std::vector<std::string>{"big", "mixed", "bare"});
  const QueuedJob& big = jobs.queue[0];
  CHECK(big.kind == "Job");
  CHECK(big.pods == 2);
  CHECK(big.since == kT0 + 5s);  // its oldest waiting pod
  CHECK(big.request == Quantity::from_units(16));
  CHECK(jobs.queue[2].kind == "Pod");
  CHECK(jobs.queue[2].uid == "uid-bare");
}

TEST_CASE("the queue is ordered by priority, then creation; a higher priority jumps ahead",
          "[rule:Q2]") {
  std::vector<JobPod> pods = {
      waiting("low", 10, kT0, "low"), waiting("high", 1000, kT0 + 2min, "high"),
      waiting("mid", 100, kT0 + 1min, "mid"), waiting("mid-later", 100, kT0 + 3min, "mid-later")};
  CHECK(names(pool_jobs(pods)) == std::vector<std::string>{"high", "mid", "mid-later", "low"});
  // A preempting job, created last, goes to the front.
  pods.push_back(waiting("urgent", 2000, kT0 + 10min, "urgent"));
  CHECK(names(pool_jobs(pods)) ==
        std::vector<std::string>{"urgent", "high", "mid", "mid-later", "low"});
  // Equal priority and creation: namespace and name keep the order stable.
  PoolJobs tie = pool_jobs({waiting("b", 0, kT0), waiting("a", 0, kT0)});
  CHECK(names(tie) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("status.jobs counts every job and shows the first 20 waiting, with positions",
          "[rule:Q3]") {
  std::vector<JobPod> pods;
  for (int i = 0; i < 30; ++i)
    pods.push_back(waiting("job-" + std::to_string(100 + i), 0, kT0 + std::chrono::seconds(i),
                           "job-" + std::to_string(100 + i), 16));
  pods.push_back(running("r-0", "r"));
  const json summary = jobs_summary(pool_jobs(pods), "nvidia.com/gpu", Quantity::from_units(8));
  CHECK(summary["running"] == 1);
  CHECK(summary["pending"] == 30);
  REQUIRE(summary["queue"].size() == kJobsShown);
  const json& first = summary["queue"][0];
  CHECK(first["position"] == 1);
  CHECK(first["name"] == "job-100");
  CHECK(first["namespace"] == "team-a");
  CHECK(first["kind"] == "Job");
  CHECK(first["priority"] == 0);
  CHECK(first["since"] == "2026-01-01T00:00:00Z");
  CHECK(first["waitingFor"] == "16 nvidia.com/gpu, largest free 8");
  CHECK(summary["queue"][19]["position"] == 20);
  // The same pool gives the same JSON: nothing to write.
  CHECK(summary == jobs_summary(pool_jobs(pods), "nvidia.com/gpu", Quantity::from_units(8)));
  // A pool without jobs still says so (the printer columns read 0).
  CHECK(jobs_summary({}, "nvidia.com/gpu", Quantity{}) ==
        json{{"running", 0}, {"pending", 0}, {"queue", json::array()}});
  // A job asking nothing of the resource has no waitingFor.
  const json cpu = jobs_summary(pool_jobs({waiting("cpu", 0, kT0, "", 0)}), "nvidia.com/gpu",
                                Quantity::from_units(8));
  CHECK_FALSE(cpu["queue"][0].contains("waitingFor"));
}

TEST_CASE("status.jobs is written on change, at most once per interval, changes coalesced",
          "[rule:Q4]") {
  using Kind = JobsWrite::Kind;
  CHECK(decide_jobs_write(false, std::nullopt, kT0).kind == Kind::Nothing);
  CHECK(decide_jobs_write(true, std::nullopt, kT0).kind == Kind::Now);  // first write
  CHECK(decide_jobs_write(false, kT0, kT0 + 1s).kind == Kind::Nothing);
  const JobsWrite later = decide_jobs_write(true, kT0, kT0 + 1s);
  CHECK(later.kind == Kind::Later);
  CHECK(later.wait == 4s);
  CHECK(decide_jobs_write(true, kT0, kT0 + 5s).kind == Kind::Now);
  // A reconcile's delay after an event: the rest of the interval, 0 once it has passed.
  CHECK(jobs_enqueue_delay(std::nullopt, kT0) == 0s);
  CHECK(jobs_enqueue_delay(kT0, kT0 + 2s) == 3s);
  CHECK(jobs_enqueue_delay(kT0, kT0 + 7s) == 0s);
  CHECK(jobs_enqueue_delay(kT0 + 1h, kT0) == 5s);  // a clock that went back waits one interval

  // 50 pod events a second for a minute, each reconciled when its delay ends and each changing
  // the summary: one write per interval, 12 a minute.
  std::optional<TimePoint> last;
  int writes = 0;
  for (int ms = 0; ms < 60'000; ms += 20) {
    const TimePoint now = kT0 + std::chrono::milliseconds(ms);
    if (decide_jobs_write(true, last, now).kind == Kind::Now) {
      last = now;
      ++writes;
    }
  }
  CHECK(writes == 12);
}

TEST_CASE("a waiting job gets one Queued event, and one more when it reaches the front",
          "[rule:Q5]") {
  auto queue_of = [](std::vector<JobPod> pods) { return pool_jobs(pods).queue; };
  auto low = waiting("low", 10, kT0, "low");
  auto mid = waiting("mid", 100, kT0, "mid");
  auto high = waiting("high", 1000, kT0, "high");

  QueuedEvents first = queued_events(queue_of({low, mid, high}), {}, "gpu-a");
  REQUIRE(first.events.size() == 3);
  CHECK(first.events[0].job.name == "high");
  CHECK(first.events[0].message == "Queued at position 1 of 3 in pool gpu-a (priority 1000)");
  CHECK(first.events[2].message == "Queued at position 3 of 3 in pool gpu-a (priority 10)");

  // Nothing moved: nothing said. A reorder behind the front: nothing said either.
  CHECK(queued_events(queue_of({low, mid, high}), first.memory, "gpu-a").events.empty());
  auto mid2 = waiting("mid2", 500, kT0, "mid2");
  QueuedEvents arrived = queued_events(queue_of({low, mid, mid2, high}), first.memory, "gpu-a");
  REQUIRE(arrived.events.size() == 1);  // the new job only
  CHECK(arrived.events[0].position == 2);

  // high starts running: mid2 moves to the front, once.
  QueuedEvents front = queued_events(queue_of({low, mid, mid2}), arrived.memory, "gpu-a");
  REQUIRE(front.events.size() == 1);
  CHECK(front.events[0].message ==
        "Moved to the front of the queue in pool gpu-a (position 1 of 3)");
  CHECK_FALSE(front.memory.contains("Job/team-a/high"));  // forgotten once it stops waiting
  CHECK(queued_events(queue_of({low, mid, mid2}), front.memory, "gpu-a").events.empty());

  // A restarted operator reads what status.jobs showed: nothing is said again.
  const json summary = jobs_summary(pool_jobs({low, mid, mid2}), "nvidia.com/gpu", Quantity{});
  CHECK(queued_events(queue_of({low, mid, mid2}), queued_memory_from_status(summary), "gpu-a")
            .events.empty());
}
