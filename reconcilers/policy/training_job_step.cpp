#include "reconcilers/policy/training_job_step.hpp"

#include <algorithm>

namespace respool::policy {

namespace {

bool run_open(const std::vector<RunningRecord>& records) {
  return !records.empty() && !records.back().end_at;
}

// Ends the open run; where none is open (the fault came before a worker ran), a run that
// started now ends now, so that the record still says what happened.
std::vector<RunningRecord> ended(std::vector<RunningRecord> records, TimePoint now,
                                 const std::string& reason, int worker, Recover recover,
                                 Recover before_downgrade = Recover::None) {
  if (!run_open(records)) start_run(records, StartType::InitOrRescheduled, now);
  end_run(records, now, reason, worker, recover, before_downgrade);
  return records;
}

// J2: the worker's end as classify reads it; nullopt when it has not ended and its node is
// healthy (a running worker on an abnormal node counts: its process cannot go on, and the other
// workers wait for it on the collective).
std::optional<WorkerEnd> worker_end(const Worker& w) {
  if (w.succeeded) return std::nullopt;
  const bool ended = w.failed || w.deleting || !w.disruption.empty();
  if (!ended && w.node_fault.empty()) return std::nullopt;
  // Built whole: member by member, GCC's -O2 inlining into next_step warns that a field may be
  // read uninitialized (-Wmaybe-uninitialized, a false positive that depends on the unity batch).
  return WorkerEnd{.index = std::max(w.index, 0),
                   .pod = w.pod,
                   .node = w.node,
                   .failed = w.failed,
                   .exit_code = w.exit_code,
                   .disruption = w.disruption,
                   .node_fault = w.node_fault};
}

JobStep begin_restart(const TrainingJob& job, const Fault& fault, Recover before_downgrade,
                      TimePoint now) {
  JobStep s;
  s.kind = JobStep::Kind::BeginRestart;
  s.fault = fault;
  s.before_downgrade = before_downgrade;
  s.ledger = job.ledger;
  s.ledger.retries_used += 1;
  s.ledger.run += 1;
  s.ledger.restarting = Restarting{fault, before_downgrade};
  s.ledger.restarting_since = now;
  s.ledger.killing.reset();
  // A rescheduled job begins a new series of hangs, unless a hang itself was downgraded (J6).
  if (before_downgrade == Recover::None) s.ledger.hang_restarts = 0;
  s.records = ended(job.records, now, fault.reason, fault.worker, fault.recover, before_downgrade);
  return s;
}

}  // namespace

std::string_view to_string(JobStep::Kind kind) {
  switch (kind) {
    case JobStep::Kind::None:
      return "None";
    case JobStep::Kind::CloseRun:
      return "CloseRun";
    case JobStep::Kind::BeginRestart:
      return "BeginRestart";
    case JobStep::Kind::SayExhausted:
      return "SayExhausted";
    case JobStep::Kind::WaitOldPods:
      return "WaitOldPods";
    case JobStep::Kind::ClearStartTime:
      return "ClearStartTime";
    case JobStep::Kind::Resume:
      return "Resume";
    case JobStep::Kind::ForgetRestart:
      return "ForgetRestart";
    case JobStep::Kind::OpenRun:
      return "OpenRun";
    case JobStep::Kind::Kill:
      return "Kill";
    case JobStep::Kind::EndKill:
      return "EndKill";
    case JobStep::Kind::ResetHangCount:
      return "ResetHangCount";
    case JobStep::Kind::WatchHang:
      return "WatchHang";
    case JobStep::Kind::BeginKill:
      return "BeginKill";
  }
  return "";
}

std::string hang_reason(const FaultTolerance& tolerance) {
  const auto s = tolerance.hang_timeout.count();
  std::string out = "no output for ";
  if (s >= 3600) out += std::to_string(s / 3600) + "h";
  if (s >= 60) out += std::to_string(s % 3600 / 60) + "m";
  return out + std::to_string(s % 60) + "s";
}

JobStep next_step(const TrainingJob& job, TimePoint now) {
  JobStep s;
  s.ledger = job.ledger;
  if (job.finished) {
    if (run_open(job.records)) {
      s.kind = JobStep::Kind::CloseRun;
      s.records = job.records;
      end_run(s.records, now, *job.finished, -1, Recover::None);
    }
    return s;
  }

  if (job.ledger.restarting) {
    if (!job.suspended) {
      s.kind = JobStep::Kind::ForgetRestart;
      s.ledger.restarting.reset();
      s.ledger.restarting_since.reset();
      return s;
    }
    // The old run's pods must be gone before the new one starts, except those on a node whose
    // kubelet cannot confirm: they hold no healthy node's accelerators, and respool never
    // force-deletes a pod.
    for (const Worker& w : job.workers) {
      if (w.run != job.ledger.run && !w.succeeded && !w.failed && !w.node_unreachable)
        s.waiting_for.push_back(w.pod);
    }
    if (!s.waiting_for.empty()) {
      s.kind = JobStep::Kind::WaitOldPods;
      return s;
    }
    if (job.start_time_set) {
      s.kind = JobStep::Kind::ClearStartTime;
      return s;
    }
    s.kind = JobStep::Kind::Resume;
    const Fault& f = job.ledger.restarting->fault;
    if (f.exclude_node && !f.node.empty() &&
        std::find(s.ledger.excluded_nodes.begin(), s.ledger.excluded_nodes.end(), f.node) ==
            s.ledger.excluded_nodes.end())
      s.ledger.excluded_nodes.push_back(f.node);
    s.ledger.restarting.reset();
    s.ledger.restarting_since.reset();
    return s;
  }
  // Suspended by someone else: nothing runs, nothing to judge. Exhausted: respool is done (J3).
  if (job.suspended || job.ledger.exhausted_said) return s;

  std::vector<Fault> faults;
  std::vector<const Worker*> running;
  for (const Worker& w : job.workers) {
    if (w.run != job.ledger.run) continue;  // an earlier run's pod
    if (w.running) running.push_back(&w);
    if (auto end = worker_end(w)) {
      if (auto fault = classify(*end, job.tolerance)) faults.push_back(std::move(*fault));
    }
  }
  std::sort(running.begin(), running.end(),
            [](const Worker* a, const Worker* b) { return a->index < b->index; });
  auto decision = decide_restart(faults, job.tolerance, job.ledger);
  if (decision.kind == RestartDecision::Kind::Restart)
    return begin_restart(job, decision.fault, Recover::None, now);
  if (decision.kind == RestartDecision::Kind::Exhausted) {
    s.kind = JobStep::Kind::SayExhausted;
    s.fault = decision.fault;
    s.ledger.exhausted_said = true;
    s.records = ended(job.records, now,
                      decision.fault.reason + "; no restarts left (job-retry-num " +
                          std::to_string(job.tolerance.retries) + ")",
                      decision.fault.worker, Recover::None);
    return s;
  }

  if (job.ledger.killing) {
    for (const Worker* w : running) {
      auto it = job.ledger.killing->restart_counts.find(w->index);
      if (it != job.ledger.killing->restart_counts.end() && w->restart_count <= it->second)
        s.kill.push_back(w);
    }
    s.kind = s.kill.empty() ? JobStep::Kind::EndKill : JobStep::Kind::Kill;
    if (s.kill.empty()) s.ledger.killing.reset();
    return s;
  }
  if (!run_open(job.records) && !running.empty()) {
    s.kind = JobStep::Kind::OpenRun;
    s.records = job.records;
    const bool after_kill =
        !s.records.empty() && s.records.back().end_recover == Recover::ProcRestart;
    start_run(s.records, after_kill ? StartType::Restarted : StartType::InitOrRescheduled, now);
    return s;
  }
  if (job.tolerance.hang_retry && !running.empty()) {
    s.kind = JobStep::Kind::WatchHang;
    s.check = std::move(running);
  }
  return s;
}

JobStep after_hang_check(const TrainingJob& job, const HangDecision& hang, int silent,
                         TimePoint now) {
  JobStep s;
  s.ledger = job.ledger;
  if (hang.reset_count) {
    s.kind = JobStep::Kind::ResetHangCount;
    s.ledger.hang_restarts = 0;
    return s;
  }
  if (!hang.restart) return s;
  const std::string reason = hang_reason(job.tolerance);
  if (hang.recover == Recover::JobReschedule) {
    Fault f;
    f.worker = std::max(silent, 0);
    f.reason = reason;
    f.recover = Recover::JobReschedule;
    JobStep r = begin_restart(job, f, hang.before_downgrade, now);
    r.ledger.hang_restarts = job.ledger.hang_restarts + 1;
    r.ledger.last_hang_restart = now;
    return r;
  }
  s.kind = JobStep::Kind::BeginKill;
  s.ledger.hang_restarts += 1;
  s.ledger.last_hang_restart = now;
  Killing k;
  k.at = now;
  for (const Worker& w : job.workers)
    if (w.run == job.ledger.run && w.running) k.restart_counts[w.index] = w.restart_count;
  s.ledger.killing = std::move(k);
  s.records = ended(job.records, now, reason, silent, Recover::ProcRestart);
  return s;
}

}  // namespace respool::policy
