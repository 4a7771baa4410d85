// A training job's steps, decided (issue 17; J2-J7): a job-level restart from the fault to the
// resume (suspend, wait for the old run's pods, clear startTime, resume with the run label and
// the excluded node), exhausted retries, the running records each step writes, an in-place
// restart upon a hang and its kills, the downgrade for restartPolicy Never, and the ledger and
// patches as the Job carries them. The injected clock is kT0 onwards.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/restart_ledger.hpp"
#include "reconcilers/policy/training_job_patch.hpp"
#include "reconcilers/policy/training_job_step.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;
using namespace std::chrono_literals;
using Kind = JobStep::Kind;
using Json = nlohmann::json;

namespace {

// An 8-worker job of run 0, each worker running on node gpu-<index>.
TrainingJob running_job(int retries, bool unconditional = false, bool hang = false) {
  TrainingJob job;
  job.tolerance.retries = retries;
  job.tolerance.unconditional = unconditional;
  job.tolerance.hang_retry = hang;
  job.start_time_set = true;
  for (int i = 0; i < 8; ++i) {
    Worker w;
    w.index = i;
    w.pod = "train-" + std::to_string(i);
    w.node = "gpu-" + std::to_string(i);
    w.running = true;
    job.workers.push_back(w);
  }
  start_run(job.records, StartType::InitOrRescheduled, kT0);
  return job;
}

void node_not_ready(Worker& w) {
  w.node_fault = "abnormal: node not ready (A050202)";
  w.node_unreachable = true;
}

// The job as the step leaves it (what the controller's write makes of it).
void apply(TrainingJob& job, const JobStep& step) {
  job.ledger = step.ledger;
  if (!step.records.empty()) job.records = step.records;
  if (step.kind == Kind::BeginRestart) job.suspended = true;
  if (step.kind == Kind::ClearStartTime) job.start_time_set = false;
  if (step.kind == Kind::Resume) job.suspended = false;
}

}  // namespace

TEST_CASE("J3 J4: a worker's node turns NotReady: one restart, from suspend to resume",
          "[policy][trainingjob][rule:J3][rule:J4]") {
  TrainingJob job = running_job(3);
  CHECK(next_step(job, kT0 + 10min).kind == Kind::None);  // no hang-retry: nothing to watch
  node_not_ready(job.workers[3]);
  node_not_ready(job.workers[5]);  // two workers at once: one restart, the lowest index decides

  JobStep begin = next_step(job, kT0 + 1h);
  REQUIRE(begin.kind == Kind::BeginRestart);
  CHECK(begin.fault->worker == 3);
  CHECK(begin.fault->recover == Recover::JobRescheduleWithTaint);
  CHECK_FALSE(begin.fault->exclude_node);  // its isolation taint keeps the next run off it
  CHECK(begin.ledger.retries_used == 1);
  CHECK(begin.ledger.run == 1);
  CHECK(begin.ledger.restarting_since == kT0 + 1h);
  REQUIRE(begin.records.size() == 1);
  CHECK(begin.records[0].end_at == kT0 + 1h);
  CHECK(begin.records[0].end_related_task == "worker-3");
  CHECK(begin.records[0].end_reason == "node gpu-3 abnormal: node not ready (A050202)");
  CHECK(begin.records[0].end_recover == Recover::JobRescheduleWithTaint);
  apply(job, begin);

  // Suspended: the Job controller removes the active pods. Until they are gone, wait; the pods
  // on the NotReady nodes are not waited for (their kubelet cannot confirm).
  for (auto& w : job.workers)
    w.deleting = true, w.running = false;
  JobStep wait = next_step(job, kT0 + 1h + 1s);
  REQUIRE(wait.kind == Kind::WaitOldPods);
  CHECK(wait.waiting_for.size() == 6);
  CHECK(std::find(wait.waiting_for.begin(), wait.waiting_for.end(), "train-3") ==
        wait.waiting_for.end());
  // No second restart while one is under way, whatever the pods show.
  job.workers[0].failed = true;
  CHECK(next_step(job, kT0 + 1h + 2s).kind == Kind::WaitOldPods);

  std::erase_if(job.workers, [](const Worker& w) { return !w.node_unreachable; });
  JobStep clear = next_step(job, kT0 + 1h + 30s);
  REQUIRE(clear.kind == Kind::ClearStartTime);
  apply(job, clear);
  JobStep resume = next_step(job, kT0 + 1h + 31s);
  REQUIRE(resume.kind == Kind::Resume);
  CHECK_FALSE(resume.ledger.restarting);
  CHECK(resume.ledger.excluded_nodes.empty());
  CHECK(resume.ledger.run == 1);
  apply(job, resume);

  // Run 1's pods start; the stuck pods of run 0 are not faults of this run.
  for (int i = 0; i < 8; ++i) {
    Worker w;
    w.index = i;
    w.run = 1;
    w.pod = "train-" + std::to_string(i) + "-r1";
    w.node = "gpu-" + std::to_string(10 + i);
    w.running = true;
    job.workers.push_back(w);
  }
  JobStep open = next_step(job, kT0 + 1h + 40s);
  REQUIRE(open.kind == Kind::OpenRun);
  REQUIRE(open.records.size() == 2);
  CHECK(open.records[1].start_type == StartType::InitOrRescheduled);
  CHECK(open.records[1].start_at == kT0 + 1h + 40s);
  apply(job, open);
  CHECK(next_step(job, kT0 + 2h).kind == Kind::None);
}

TEST_CASE("J4: a disruption on a healthy node keeps that node out of the next run",
          "[policy][trainingjob][rule:J4]") {
  TrainingJob job = running_job(2);
  job.workers[6].failed = true;
  job.workers[6].running = false;
  job.workers[6].disruption = "PreemptionByScheduler";
  JobStep begin = next_step(job, kT0 + 5min);
  REQUIRE(begin.kind == Kind::BeginRestart);
  CHECK(begin.fault->exclude_node);
  CHECK(begin.records[0].end_reason == "disrupted on node gpu-6 (PreemptionByScheduler)");
  apply(job, begin);
  job.workers.clear();
  job.start_time_set = false;
  JobStep resume = next_step(job, kT0 + 6min);
  REQUIRE(resume.kind == Kind::Resume);
  CHECK(resume.ledger.excluded_nodes == std::vector<std::string>{"gpu-6"});

  // The patch: run label, NotIn term, unsuspend, all guarded by the resourceVersion.
  Json patch = resume_patch("41", resume.ledger, job.tolerance, Json::object());
  CHECK(patch["metadata"]["resourceVersion"] == "41");
  CHECK(patch["spec"]["suspend"] == false);
  CHECK(patch["spec"]["template"]["metadata"]["labels"][kRunLabel] == "1");
  CHECK(patch["spec"]["template"]["spec"]["affinity"] ==
        Json::parse(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
          {"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"NotIn",
           "values":["gpu-6"]}]}]}}})"));
}

TEST_CASE("J4: the NotIn term joins every term the user wrote, and theirs keeps its values",
          "[policy][trainingjob][rule:J4]") {
  Json affinity = Json::parse(R"({"podAntiAffinity":{"x":1},"nodeAffinity":{
    "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
      {"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]},
      {"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["old"]}]}]}}})");
  Json out = exclude_nodes(affinity, {"gpu-1", "old"});
  const Json& terms =
      out["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
  REQUIRE(terms.size() == 2);
  CHECK(terms[0]["matchExpressions"] ==
        affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                ["nodeSelectorTerms"][0]["matchExpressions"]);
  CHECK(terms[0]["matchFields"][0]["values"] == Json::array({"gpu-1", "old"}));
  CHECK(terms[1]["matchFields"].size() == 1);
  CHECK(terms[1]["matchFields"][0]["values"] == Json::array({"old", "gpu-1"}));
  CHECK(out["podAntiAffinity"] == Json{{"x", 1}});
  CHECK(exclude_nodes(out, {"gpu-1"}) == out);  // idempotent
}

TEST_CASE("J2 J3: unconditional retry restarts on exit code 1; retries run out, said once",
          "[policy][trainingjob][rule:J2][rule:J3]") {
  TrainingJob plain = running_job(1);
  plain.workers[2].running = false;
  plain.workers[2].failed = true;
  plain.workers[2].exit_code = 1;
  CHECK(next_step(plain, kT0 + 1min).kind == Kind::None);  // not a fault without it

  TrainingJob job = plain;
  job.tolerance.unconditional = true;
  JobStep begin = next_step(job, kT0 + 1min);
  REQUIRE(begin.kind == Kind::BeginRestart);
  CHECK(begin.fault->recover == Recover::JobReschedule);
  CHECK(begin.records[0].end_reason == "exit with 1");
  apply(job, begin);
  job.workers.clear();
  job.start_time_set = false;
  apply(job, next_step(job, kT0 + 2min));  // Resume
  REQUIRE_FALSE(job.suspended);

  Worker again;
  again.index = 0;
  again.run = 1;
  again.pod = "train-0-r1";
  again.node = "gpu-20";
  again.failed = true;
  again.exit_code = 1;
  job.workers.push_back(again);
  JobStep out = next_step(job, kT0 + 3min);
  REQUIRE(out.kind == Kind::SayExhausted);  // retries 1: the second fault finds none left
  CHECK(out.ledger.exhausted_said);
  CHECK(out.ledger.retries_used == 1);
  REQUIRE(out.records.size() == 2);  // no run was open: one that starts and ends now says so
  CHECK(out.records[1].end_reason == "exit with 1; no restarts left (job-retry-num 1)");
  CHECK(out.records[1].end_recover == Recover::None);
  apply(job, out);
  CHECK(next_step(job, kT0 + 4min).kind == Kind::None);  // said once; respool is done
}

TEST_CASE("J3: a job resumed by hand mid-restart; a finished job closes its run",
          "[policy][trainingjob][rule:J3][rule:J7]") {
  TrainingJob job = running_job(3);
  node_not_ready(job.workers[0]);
  apply(job, next_step(job, kT0 + 1min));
  job.suspended = false;
  JobStep forget = next_step(job, kT0 + 2min);
  REQUIRE(forget.kind == Kind::ForgetRestart);
  CHECK_FALSE(forget.ledger.restarting);
  CHECK(forget.ledger.retries_used == 1);

  TrainingJob done = running_job(3);
  done.finished = "job completed";
  JobStep close = next_step(done, kT0 + 3h);
  REQUIRE(close.kind == Kind::CloseRun);
  CHECK(close.records.back().end_reason == "job completed");
  CHECK(close.records.back().end_related_task.empty());
  apply(done, close);
  CHECK(next_step(done, kT0 + 4h).kind == Kind::None);

  // hang-retry alone: a fault is no business of respool's (no restarts were asked for).
  TrainingJob hang_only = running_job(0, false, true);
  node_not_ready(hang_only.workers[2]);
  CHECK(next_step(hang_only, kT0).kind == Kind::WatchHang);

  TrainingJob paused = running_job(3);
  paused.suspended = true;  // suspended by its owner: nothing to judge
  node_not_ready(paused.workers[1]);
  CHECK(next_step(paused, kT0).kind == Kind::None);
}

TEST_CASE("J5 J7: a hang restarts in place: each worker killed once, then a restarted run",
          "[policy][trainingjob][rule:J5][rule:J7]") {
  TrainingJob job = running_job(2, false, true);
  for (auto& w : job.workers)
    w.restart_count = 1;
  JobStep watch = next_step(job, kT0 + 40min);
  REQUIRE(watch.kind == Kind::WatchHang);
  CHECK(watch.check.size() == 8);

  std::vector<WorkerLog> logs;
  for (int i = 0; i < 8; ++i)
    logs.push_back({i, kT0 + 10min});
  auto hang = decide_hang(logs, job.tolerance, job.ledger, std::nullopt, false, kT0 + 40min);
  REQUIRE(hang.restart);
  JobStep kill = after_hang_check(job, hang, 0, kT0 + 40min);
  REQUIRE(kill.kind == Kind::BeginKill);
  CHECK(kill.ledger.hang_restarts == 1);
  CHECK(kill.ledger.last_hang_restart == kT0 + 40min);
  REQUIRE(kill.ledger.killing);
  CHECK(kill.ledger.killing->restart_counts.size() == 8);
  CHECK(kill.ledger.retries_used == 0);  // hang restarts do not use job-retry-num
  CHECK(kill.records[0].end_recover == Recover::ProcRestart);
  CHECK(kill.records[0].end_reason == "no output for 30m0s");
  CHECK(kill.records[0].end_related_task == "worker-0");
  apply(job, kill);

  JobStep kills = next_step(job, kT0 + 40min + 1s);
  REQUIRE(kills.kind == Kind::Kill);
  CHECK(kills.kill.size() == 8);
  for (int i = 0; i < 5; ++i)
    job.workers[i].restart_count = 2;  // restarted by their kubelet
  kills = next_step(job, kT0 + 40min + 2s);
  REQUIRE(kills.kind == Kind::Kill);
  CHECK(kills.kill.size() == 3);
  CHECK(kills.kill.front()->index == 5);
  for (auto& w : job.workers)
    w.restart_count = 2;
  JobStep end = next_step(job, kT0 + 40min + 3s);
  REQUIRE(end.kind == Kind::EndKill);
  CHECK_FALSE(end.ledger.killing);
  apply(job, end);
  JobStep open = next_step(job, kT0 + 40min + 4s);
  REQUIRE(open.kind == Kind::OpenRun);
  CHECK(open.records.back().start_type == StartType::Restarted);
  CHECK(job.workers[0].run == 0);  // no pod was rescheduled: same pods, same run
}

TEST_CASE("J6: restartPolicy Never downgrades a hang to a job-level restart, keeping both",
          "[policy][trainingjob][rule:J6]") {
  TrainingJob job = running_job(2, false, true);
  job.restart_policy_never = true;
  std::vector<WorkerLog> logs{{0, kT0}, {1, kT0}};
  auto hang = decide_hang(logs, job.tolerance, job.ledger, std::nullopt, true, kT0 + 30min);
  JobStep begin = after_hang_check(job, hang, 1, kT0 + 30min);
  REQUIRE(begin.kind == Kind::BeginRestart);
  CHECK(begin.before_downgrade == Recover::ProcRestart);
  CHECK(begin.ledger.retries_used == 1);
  CHECK(begin.ledger.hang_restarts == 1);
  CHECK(begin.records[0].end_recover == Recover::JobReschedule);
  CHECK(begin.records[0].end_recover_before_downgrade == Recover::ProcRestart);
  CHECK(begin.records[0].end_related_task == "worker-1");
  CHECK(to_json(begin.records)[0]["endRecoverBeforeDowngrade"] == "proc_restart");
}

TEST_CASE("J3 J5: the ledger on the Job reads back as written, with the retries left",
          "[policy][trainingjob][rule:J3][rule:J5]") {
  TrainingJob job = running_job(3);
  job.workers[4].disruption = "DeletionByTaintManager";
  JobStep begin = next_step(job, kT0 + 1min);
  RestartLedger l = begin.ledger;
  l.last_hang_restart = kT0;
  l.killing = Killing{kT0, {{0, 2}, {7, 3}}};
  l.job_rules_warned = true;
  l.excluded_nodes = {"gpu-9"};
  Json json = to_json(l, job.tolerance);
  CHECK(json["retriesUsed"] == 1);
  CHECK(json["retriesLeft"] == 2);
  CHECK(json["restarting"]["worker"] == "worker-4");
  CHECK(json["restarting"]["recover"] == "job_reschedule_with_taint");
  CHECK(restart_ledger_from_json(json) == l);
  CHECK(restart_ledger_from_json(Json::parse(json.dump())) == l);
  CHECK(restart_ledger_from_json(Json("garbage")) == RestartLedger{});
  CHECK(restart_ledger_from_json(Json{{"retriesUsed", -4}}).retries_used == 0);

  Json patch = job_annotations_patch("7", l, job.tolerance, &begin.records, true);
  CHECK(patch["spec"]["suspend"] == true);
  CHECK(Json::parse(
            patch["metadata"]["annotations"][kFaultToleranceStateAnnotation].get<std::string>()) ==
        json);
  CHECK(Json::parse(patch["metadata"]["annotations"][kRunningRecordsAnnotation]
                        .get<std::string>())[0]["endRelatedTask"] == "worker-4");
  CHECK(clear_start_time_patch("8") ==
        Json::parse(R"({"metadata":{"resourceVersion":"8"},"status":{"startTime":null}})"));
}
