#include "reconcilers/trainingjob/training_job_reconciler.hpp"

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/restart_ledger.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/training_job_patch.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"

namespace respool::reconcilers {

using Kind = policy::JobStep::Kind;
using runtime::ReconcileResult;

namespace {

// Pod deletions and restarts reach the controller through the pods cache; this is the fallback.
constexpr auto kRecheck = std::chrono::seconds(30);

std::string retries_text(const policy::RestartLedger& ledger, const policy::FaultTolerance& t) {
  return "restart " + std::to_string(ledger.retries_used) + " of " + std::to_string(t.retries);
}

// A write lost to a newer version of the Job is no failure: the next round decides again from
// that version.
std::expected<ReconcileResult, std::string> after_write(const kube::Result<void>& written,
                                                        const std::string& key) {
  if (written) return ReconcileResult::done();
  if (lost_race(written.error())) return ReconcileResult{true, {}};
  return std::unexpected("patch job " + key + ": " + written.error().describe());
}

}  // namespace

runtime::ObjectReference job_reference(const kube::Unstructured& job) {
  return {"batch/v1", "Job", job.meta.name, job.meta.namespace_.str(), job.meta.uid.str()};
}

bool TrainingJobReconciler::is_candidate(const kube::ObjectMeta& meta) {
  for (const auto& [key, value] : meta.annotations.items())
    if (key.view().starts_with("fault-tolerance/")) return true;
  return false;
}

std::expected<ReconcileResult, std::string> TrainingJobReconciler::reconcile(
    const std::string& key) {
  auto result = reconcile_job(key);
  // A failure is also said on the Job, where `kubectl describe job` shows it: the log alone
  // would leave a job that is not restarted, and nothing saying why (a 403 names the permission).
  if (!result) {
    if (auto job = ctx_.caches.training_jobs->store().get(key))
      ctx_.events->event(job_reference(*job), runtime::EventType::Warning, "ReconcileFailed",
                         "Reconcile", result.error());
  }
  return result;
}

std::expected<ReconcileResult, std::string> TrainingJobReconciler::reconcile_job(
    const std::string& key) {
  auto observed = observe_job(ctx_, key);
  if (!observed || !observed->reading.tolerance) {
    forget(key);
    if (observed) report_problems(*observed);
    return ReconcileResult::done();
  }
  const ObservedJob& o = *observed;
  const policy::TrainingJob& t = o.training;
  if (t.finished || t.ledger.exhausted_said)
    forget(key);
  else
    track(key, o.pool);

  // First sight: the ledger goes on the Job (retries left, readable at once), and J8's warning
  // is given once, in the same write.
  const std::string conflict = policy::job_rules_conflict(o.rules, t.tolerance);
  if (!o.has_ledger || (!conflict.empty() && !t.ledger.job_rules_warned)) {
    policy::RestartLedger ledger = t.ledger;
    if (!conflict.empty() && !ledger.job_rules_warned) {
      ledger.job_rules_warned = true;
      ctx_.events->event(job_reference(*o.job), runtime::EventType::Warning, "JobRulesEndFirst",
                         "Validate", conflict);
    }
    auto written = write(o, policy::job_annotations_patch(o.job->meta.resource_version, ledger,
                                                          t.tolerance, nullptr));
    return after_write(written, o.key);
  }
  const policy::JobStep step = policy::next_step(t, ctx_.clock->now());
  if (step.kind == Kind::WatchHang) return check_hang(o, step);
  return act(o, step);
}

std::expected<ReconcileResult, std::string> TrainingJobReconciler::act(const ObservedJob& o,
                                                                       const policy::JobStep& s) {
  const policy::TrainingJob& t = o.training;
  const std::string& rv = o.job->meta.resource_version;
  const auto ref = job_reference(*o.job);
  auto annotations = [&](const std::vector<policy::RunningRecord>* records,
                         std::optional<bool> suspend = std::nullopt) {
    return write(o, policy::job_annotations_patch(rv, s.ledger, t.tolerance, records, suspend));
  };
  kube::Result<void> written;
  switch (s.kind) {
    case Kind::None:
    case Kind::WatchHang:
      return ReconcileResult::done();
    case Kind::CloseRun:
    case Kind::OpenRun:
      written = annotations(&s.records);
      break;
    case Kind::EndKill:
    case Kind::ResetHangCount:
      written = annotations(nullptr);
      break;
    case Kind::BeginRestart: {
      written = annotations(&s.records, true);
      if (!written) break;
      const policy::Fault& f = *s.fault;
      const std::string recover(policy::to_string(f.recover));
      std::string note = "worker-" + std::to_string(f.worker) + ": " + f.reason +
                         "; restarting the job (" + recover;
      if (s.before_downgrade != policy::Recover::None)
        note += ", downgraded from " + std::string(policy::to_string(s.before_downgrade));
      note += "), " + retries_text(s.ledger, t.tolerance);
      if (f.exclude_node) note += "; node " + f.node + " is kept out of the next run";
      ctx_.events->event(ref, runtime::EventType::Warning, "Restarting", "Restart", note);
      if (auto pool = ctx_.caches.pools->store().get(o.pool)) {
        ctx_.events->event(reference_to(*pool), runtime::EventType::Normal, "JobRestarted",
                           "Restart", "job " + o.key + " " + note);
      }
      ctx_.metrics->count_job_restart(o.pool, recover);
      runtime::log::info("trainingjob", "restarting",
                         {{"job", o.key},
                          {"worker", f.worker},
                          {"reason", f.reason},
                          {"recover", recover},
                          {"run", s.ledger.run}});
      break;
    }
    case Kind::SayExhausted:
      written = annotations(&s.records);
      if (written) {
        ctx_.events->event(ref, runtime::EventType::Warning, "RestartsExhausted", "Restart",
                           "worker-" + std::to_string(s.fault->worker) + ": " + s.fault->reason +
                               "; not restarted: all " + std::to_string(t.tolerance.retries) +
                               " restarts (fault-tolerance/job-retry-num) are used");
      }
      break;
    case Kind::WaitOldPods:
      runtime::log::debug("trainingjob", "waiting for the old run's pods",
                          {{"job", o.key}, {"pods", s.waiting_for.size()}});
      return ReconcileResult::after(kRecheck);
    case Kind::ClearStartTime:
      written = write(o, policy::clear_start_time_patch(rv), true);
      break;
    case Kind::Resume: {
      written = write(o, policy::resume_patch(rv, s.ledger, t.tolerance, o.affinity));
      if (!written) break;
      std::string note = "run " + std::to_string(s.ledger.run) + " starts";
      if (!s.ledger.excluded_nodes.empty()) {
        note += "; kept off node";
        note += s.ledger.excluded_nodes.size() > 1 ? "s" : "";
        for (std::size_t i = 0; i < s.ledger.excluded_nodes.size(); ++i)
          note += (i ? ", " : " ") + s.ledger.excluded_nodes[i];
      }
      ctx_.events->event(ref, runtime::EventType::Normal, "Resumed", "Restart", note);
      break;
    }
    case Kind::ForgetRestart:
      written = annotations(nullptr);
      if (written) {
        ctx_.events->event(ref, runtime::EventType::Normal, "RestartTakenOver", "Restart",
                           "the job was resumed by someone else while respool restarted it");
      }
      break;
    case Kind::BeginKill: {
      written = annotations(&s.records);
      if (!written) break;
      ctx_.events->event(ref, runtime::EventType::Warning, "Hung", "Restart",
                         policy::hang_reason(t.tolerance) +
                             " from any worker; restarting in place (proc_restart), hang "
                             "restart " +
                             std::to_string(s.ledger.hang_restarts) + " of " +
                             std::to_string(policy::kMaxConsecutiveHangRestarts));
      ctx_.metrics->count_job_restart(o.pool, "proc_restart");
      break;
    }
    case Kind::Kill:
      return kill(o, s);
  }
  return after_write(written, o.key);
}

kube::Result<void> TrainingJobReconciler::write(const ObservedJob& o, const kube::Json& patch,
                                                bool status) {
  kube::WriteOptions options;
  if (status) options.subresource = "status";
  auto r = ctx_.client->patch(kube::resources::jobs, o.job->meta.namespace_.view(),
                              o.job->meta.name, kube::PatchType::Merge, patch, options);
  if (!r) return std::unexpected(r.error());
  return {};
}

void TrainingJobReconciler::report_problems(const ObservedJob& o) {
  for (const auto& p : o.reading.problems) {
    const std::string said = o.job->meta.uid.str() + "\n" + p.annotation + "=" + p.value;
    {
      std::lock_guard lock(mu_);
      if (!said_.insert(said).second) continue;
    }
    ctx_.events->event(job_reference(*o.job), runtime::EventType::Warning, "InvalidAnnotation",
                       "Validate", p.message);
  }
}

void TrainingJobReconciler::track(const std::string& key, const std::string& pool) {
  std::lock_guard lock(mu_);
  auto [it, added] = pools_.try_emplace(key, pool);
  if (!added && it->second == pool) return;
  it->second = pool;
  std::map<std::string, int> counts;
  for (const auto& [k, p] : pools_)
    ++counts[p];
  ctx_.metrics->set_fault_tolerant_jobs(counts);
}

void TrainingJobReconciler::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  hung_since_.erase(key);
  if (pools_.erase(key) == 0) return;
  std::map<std::string, int> counts;
  for (const auto& [k, p] : pools_)
    ++counts[p];
  ctx_.metrics->set_fault_tolerant_jobs(counts);
}

}  // namespace respool::reconcilers
