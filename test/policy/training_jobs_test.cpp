// Training jobs' fault tolerance, decided (issue 17; J1-J8): the annotations and their bounds,
// what counts as a fault, retries (1 and 128, exhausted, two failures at once), recovery with
// and without the node's taint, hangs on an injected clock (exactly at the window, progress
// resets the count, the fourth consecutive hang is not restarted), the downgrade for
// restartPolicy Never, the running records, and the Job's own rules that would end it first.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/fault_tolerance.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/time.hpp"
#include "reconcilers/policy/training_faults.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;
using namespace std::chrono_literals;

namespace {

FaultTolerance tolerance(int retries, bool unconditional = false, bool hang = false) {
  FaultTolerance t;
  t.retries = retries;
  t.unconditional = unconditional;
  t.hang_retry = hang;
  return t;
}

WorkerEnd ended(int index, const std::string& node) {
  WorkerEnd e;
  e.index = index;
  e.pod = "train-" + std::to_string(index);
  e.node = node;
  return e;
}

}  // namespace

TEST_CASE("J1: the annotations as the documents spell them, and their bounds",
          "[policy][trainingjob][rule:J1]") {
  // No fault-tolerance/* annotation: left alone.
  auto none = read_fault_tolerance({{"respool.io/hang-timeout", "5m"}, {"team", "vision"}});
  CHECK_FALSE(none.tolerance);
  CHECK(none.problems.empty());

  auto all = read_fault_tolerance({{"fault-tolerance/job-retry-num", "3"},
                                   {"fault-tolerance/job-unconditional-retry", "true"},
                                   {"fault-tolerance/hang-retry", "true"},
                                   {"respool.io/hang-timeout", "1h30m"}});
  REQUIRE(all.tolerance);
  CHECK(*all.tolerance == FaultTolerance{3, true, true, 90min});
  CHECK(read_fault_tolerance({{"fault-tolerance/hang-retry", "false"}}).tolerance->hang_timeout ==
        30min);  // the default window
  CHECK(read_fault_tolerance({{"fault-tolerance/job-retry-num", "1"}}).tolerance->retries == 1);
  CHECK(read_fault_tolerance({{"fault-tolerance/job-retry-num", "128"}}).tolerance->retries == 128);

  for (const std::string bad : {"0", "129", "-1", "3.0", "03", " 3", "three", "", "1000"}) {
    auto r = read_fault_tolerance({{"fault-tolerance/job-retry-num", bad}});
    INFO(bad);
    CHECK_FALSE(r.tolerance);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].annotation == "fault-tolerance/job-retry-num");
    CHECK(r.problems[0].message.find("J1") != std::string::npos);
    CHECK(r.problems[0].message.find("from 1 to 128") != std::string::npos);
  }
  auto booleans = read_fault_tolerance(
      {{"fault-tolerance/job-unconditional-retry", "yes"}, {"fault-tolerance/hang-retry", "True"}});
  CHECK_FALSE(booleans.tolerance);
  REQUIRE(booleans.problems.size() == 2);
  CHECK(booleans.problems[0].message ==
        "J1: fault-tolerance/job-unconditional-retry must be \"true\" or \"false\", not \"yes\"");
  auto window = read_fault_tolerance(
      {{"fault-tolerance/hang-retry", "true"}, {"respool.io/hang-timeout", "30s"}});
  CHECK_FALSE(window.tolerance);
  CHECK(window.problems.at(0).annotation == "respool.io/hang-timeout");

  CHECK(*parse_duration("2h") == 2h);
  CHECK(*parse_duration("90s") == 90s);
  CHECK_FALSE(parse_duration("30"));
  CHECK_FALSE(parse_duration("5d"));
  CHECK_FALSE(parse_duration("-5m"));
}

TEST_CASE("J2/J4: faults of the node, disruptions, and failures only unconditional retry counts",
          "[policy][trainingjob][rule:J2][rule:J4]") {
  const FaultTolerance plain = tolerance(3);
  // F1: a fault isolation code on the node; F2: not ready or unreachable.
  for (const std::string why : {"A050101 (GPU ECC error)", "not ready (A050202)", "unreachable"}) {
    WorkerEnd e = ended(2, "n-3");
    e.failed = true;
    e.node_fault = why;
    auto f = classify(e, plain);
    REQUIRE(f);
    CHECK(f->worker == 2);
    CHECK(f->reason == "node n-3 " + why);
    CHECK(f->recover == Recover::JobRescheduleWithTaint);
    CHECK_FALSE(f->exclude_node);  // its isolation taint keeps the next run off it
  }
  // Removed (not failed) while the node is abnormal: a fault too.
  WorkerEnd removed = ended(0, "n-1");
  removed.node_fault = "not ready (A050202)";
  CHECK(classify(removed, plain));
  // DisruptionTarget from the taint manager, the kubelet or pod GC, on a healthy-looking node.
  for (const std::string reason :
       {"DeletionByTaintManager", "TerminationByKubelet", "DeletionByPodGC"}) {
    WorkerEnd e = ended(1, "n-2");
    e.disruption = reason;
    auto f = classify(e, plain);
    REQUIRE(f);
    CHECK(f->recover == Recover::JobRescheduleWithTaint);
    CHECK(f->exclude_node);
    CHECK(f->reason.find(reason) != std::string::npos);
  }
  // An exit code 1 on a healthy node: only with unconditional retry.
  WorkerEnd exit1 = ended(4, "n-5");
  exit1.failed = true;
  exit1.exit_code = 1;
  CHECK_FALSE(classify(exit1, plain));
  auto f = classify(exit1, tolerance(3, true));
  REQUIRE(f);
  CHECK(f->reason == "exit with 1");
  CHECK(f->recover == Recover::JobReschedule);
  // A worker that succeeded is no fault, even with unconditional retry.
  CHECK_FALSE(classify(ended(5, "n-6"), tolerance(3, true)));
}

TEST_CASE("J3: one restart for faults seen together, a retry each, exhausted said once",
          "[policy][trainingjob][rule:J3]") {
  std::vector<Fault> two = {{5, "n-6", "node n-6 unreachable", Recover::JobRescheduleWithTaint},
                            {2, "n-3", "node n-3 unreachable", Recover::JobRescheduleWithTaint}};
  RestartLedger ledger;
  auto d = decide_restart(two, tolerance(1), ledger);
  CHECK(d.kind == RestartDecision::Kind::Restart);
  CHECK(d.fault.worker == 2);  // the lowest index decides, once
  // Under way (the Job suspended): no second restart for the same faults.
  ledger.retries_used = 1;
  ledger.restarting_since = kT0;
  CHECK(decide_restart(two, tolerance(1), ledger).kind == RestartDecision::Kind::None);
  // Over, and the retry was the only one: exhausted, said once.
  ledger.restarting_since.reset();
  CHECK(decide_restart(two, tolerance(1), ledger).kind == RestartDecision::Kind::Exhausted);
  ledger.exhausted_said = true;
  CHECK(decide_restart(two, tolerance(1), ledger).kind == RestartDecision::Kind::None);
  // 128 retries: the 128th restart is allowed, the 129th is not.
  RestartLedger many;
  many.retries_used = 127;
  CHECK(decide_restart(two, tolerance(128), many).kind == RestartDecision::Kind::Restart);
  many.retries_used = 128;
  CHECK(decide_restart(two, tolerance(128), many).kind == RestartDecision::Kind::Exhausted);
  // No fault: nothing.
  CHECK(decide_restart({}, tolerance(3), RestartLedger{}).kind == RestartDecision::Kind::None);
}

TEST_CASE("J5: a hang is every running worker silent for the window; at most 3 in a row",
          "[policy][trainingjob][rule:J5]") {
  const FaultTolerance t = tolerance(2, false, true);  // a 30-minute window
  std::vector<WorkerLog> workers = {{0, kT0}, {1, kT0 + 5min}};
  RestartLedger ledger;
  // One worker still logged 29 minutes ago: not hung; looked at again when it could be.
  auto d = decide_hang(workers, t, ledger, std::nullopt, false, kT0 + 34min);
  CHECK_FALSE(d.hung);
  CHECK(d.next_check == kT0 + 35min);
  // Exactly at the window: hung, restarted in place.
  d = decide_hang(workers, t, ledger, std::nullopt, false, kT0 + 35min);
  CHECK(d.hung);
  CHECK(d.restart);
  CHECK(d.recover == Recover::ProcRestart);
  // The fourth consecutive hang is not restarted.
  ledger.hang_restarts = 3;
  d = decide_hang(workers, t, ledger, kT0 - 1min, false, kT0 + 40min);
  CHECK(d.hung);
  CHECK_FALSE(d.restart);
  // Without hang-retry: a hang is seen, nothing is restarted.
  CHECK_FALSE(
      decide_hang(workers, tolerance(2), RestartLedger{}, std::nullopt, false, kT0 + 2h).restart);
  // Progress: every worker logged since the last hang restart, for a whole window: count resets.
  RestartLedger after;
  after.hang_restarts = 2;
  const TimePoint restarted = kT0;
  std::vector<WorkerLog> logging = {{0, kT0 + 30min}, {1, kT0 + 31min}};
  CHECK(decide_hang(logging, t, after, restarted, false, kT0 + 31min).reset_count);
  // Not yet a whole window since the restart: the count stays.
  CHECK_FALSE(decide_hang(logging, t, after, restarted, false, kT0 + 29min).reset_count);
  // A worker silent since before the restart: the count stays.
  std::vector<WorkerLog> one_silent = {{0, kT0 - 1min}, {1, kT0 + 31min}};
  CHECK_FALSE(decide_hang(one_silent, t, after, restarted, false, kT0 + 31min).reset_count);
  // Restarted a window ago but silent since: its start is no progress, the count stays (the
  // in-place restart's containers start after the kill, and write nothing while still hung).
  std::vector<WorkerLog> started_only = {{0, kT0 + 1min, true}, {1, kT0 + 2min, true}};
  auto quiet = decide_hang(started_only, t, after, restarted, false, kT0 + 31min);
  CHECK_FALSE(quiet.hung);
  CHECK_FALSE(quiet.reset_count);
  // No running worker: nothing to decide.
  CHECK_FALSE(decide_hang({}, t, ledger, std::nullopt, false, kT0 + 5h).hung);
}

TEST_CASE("J6: restartPolicy Never downgrades an in-place restart to a job-level one",
          "[policy][trainingjob][rule:J6]") {
  const FaultTolerance t = tolerance(1, false, true);
  std::vector<WorkerLog> workers = {{0, kT0}};
  auto d = decide_hang(workers, t, RestartLedger{}, std::nullopt, true, kT0 + 30min);
  CHECK(d.restart);
  CHECK(d.recover == Recover::JobReschedule);
  CHECK(d.before_downgrade == Recover::ProcRestart);
  // A job-level restart uses a retry: none left, none happens.
  RestartLedger used;
  used.retries_used = 1;
  CHECK_FALSE(decide_hang(workers, t, used, std::nullopt, true, kT0 + 30min).restart);
}

TEST_CASE("J7: running records, newest last, the 128 latest, as the annotation holds them",
          "[policy][trainingjob][rule:J7]") {
  std::vector<RunningRecord> records;
  CHECK_FALSE(end_run(records, kT0, "", 0, Recover::None));  // nothing open
  start_run(records, StartType::InitOrRescheduled, kT0);
  CHECK(end_run(records, kT0 + 1h, "node n-3 not ready (A050202)", 2,
                Recover::JobRescheduleWithTaint));
  CHECK_FALSE(end_run(records, kT0 + 2h, "again", 2, Recover::None));  // none open
  start_run(records, StartType::InitOrRescheduled, kT0 + 1h + 2min);
  CHECK(end_run(records, kT0 + 3h, "hang", 0, Recover::JobReschedule, Recover::ProcRestart));
  start_run(records, StartType::Restarted, kT0 + 3h + 1min);
  auto json = to_json(records);
  CHECK(json[0] == nlohmann::json::parse(R"j({"startAt": "2026-01-01T00:00:00Z",
    "endAt": "2026-01-01T01:00:00Z", "startType": "init_or_rescheduled",
    "endReason": "node n-3 not ready (A050202)", "endRelatedTask": "worker-2",
    "endRecover": "job_reschedule_with_taint"})j"));
  CHECK(json[1]["endRecover"] == "job_reschedule");
  CHECK(json[1]["endRecoverBeforeDowngrade"] == "proc_restart");
  CHECK(json[2] == nlohmann::json::parse(
                       R"j({"startAt": "2026-01-01T03:01:00Z", "startType": "restarted"})j"));
  CHECK(running_records_from_json(json) == records);
  // Bounded: the 128 latest.
  for (int i = 0; i < 200; ++i) {
    end_run(records, kT0 + std::chrono::hours(4 + i), "x", 0, Recover::JobReschedule);
    start_run(records, StartType::InitOrRescheduled, kT0 + std::chrono::hours(4 + i));
  }
  CHECK(records.size() == kMaxRunningRecords);
  CHECK(records.back().start_at == kT0 + std::chrono::hours(203));
  // Lenient reading: unknown values are skipped.
  auto odd = nlohmann::json::parse(
      R"j([{"startAt": "x"}, {"startAt": "2026-01-01T00:00:00Z", "startType": "later"},
          {"startAt": "2026-01-01T00:00:00Z", "startType": "restarted", "endRecover": "magic"},
          {"startAt": "2026-01-01T00:00:00Z", "startType": "restarted"}])j");
  CHECK(running_records_from_json(odd).size() == 1);
}

TEST_CASE("J8: a Job whose own rules would end it first is warned of",
          "[policy][trainingjob][rule:J8]") {
  CHECK(job_rules_conflict({6, false}, tolerance(3)).empty());
  CHECK(job_rules_conflict({6, false}, tolerance(6)).empty());
  const std::string low = job_rules_conflict({2, false}, tolerance(3));
  CHECK(low.find("J8") != std::string::npos);
  CHECK(low.find("backoffLimit 2") != std::string::npos);
  CHECK(job_rules_conflict({10, true}, tolerance(3)).find("FailJob") != std::string::npos);
  CHECK(job_rules_conflict({0, false}, tolerance(0, false, true)).empty());  // no retries asked
}
