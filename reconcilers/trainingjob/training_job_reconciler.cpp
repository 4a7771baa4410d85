#include "reconcilers/trainingjob/training_job_reconciler.hpp"

#include "operator/runtime/log.hpp"
#include "reconcilers/policy/restart_ledger.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/training_job_notes.hpp"
#include "reconcilers/policy/training_job_patch.hpp"
#include "reconcilers/policy/training_job_risk.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"

namespace respool::reconcilers {

using Kind = policy::JobStep::Kind;
using runtime::ReconcileResult;

namespace {

// Pod deletions and restarts reach the controller through the pods cache; this is the fallback.
constexpr auto kRecheck = std::chrono::seconds(30);

// A write lost to a newer version of the Job is no failure: the next round decides again from
// that version.
Outcome<ReconcileResult> after_write(const kube::Result<void>& written, const std::string& key) {
  if (written) return ReconcileResult::done();
  if (lost_race(written.error())) return ReconcileResult{true, {}};
  return failed("patch job " + key, written.error());
}

}  // namespace

runtime::ObjectReference job_reference(const kube::Unstructured& job) {
  return {"batch/v1", "Job", job.meta.name, job.meta.namespace_.str(), job.meta.uid.str()};
}

bool TrainingJobReconciler::needs_unprotected_label(const kube::Unstructured& job) {
  if (!training_pool(job.object)) return false;
  return job.meta.labels.get(policy::kRiskLabel) != policy::to_string(policy::Risk::Unprotected);
}

Outcome<ReconcileResult> TrainingJobReconciler::label_unprotected(const ObservedJob& o) {
  if (!needs_unprotected_label(*o.job)) return ReconcileResult::done();
  const kube::Json patch = {
      {"metadata",
       {{"resourceVersion", o.job->meta.resource_version},
        {"labels",
         {{policy::kRiskLabel, std::string(policy::to_string(policy::Risk::Unprotected))}}}}}};
  return after_write(write(o, patch), o.key);
}

bool TrainingJobReconciler::is_candidate(const kube::ObjectMeta& meta) {
  for (const auto& [key, value] : meta.annotations.items())
    if (key.view().starts_with("fault-tolerance/")) return true;
  return false;
}

Outcome<ReconcileResult> TrainingJobReconciler::reconcile(const std::string& key) {
  auto result = reconcile_job(key);
  // A failure is also said on the Job, where `kubectl describe job` shows it: the log alone
  // would leave a job that is not restarted, and nothing saying why (a 403 names the permission).
  if (!result) {
    if (auto job = ctx_.caches.training_jobs->store().get(key))
      ctx_.events->event(job_reference(*job), runtime::EventType::Warning, "ReconcileFailed",
                         "Reconcile", result.error().message);
  }
  return result;
}

Outcome<ReconcileResult> TrainingJobReconciler::reconcile_job(const std::string& key) {
  auto observed = observe_job(ctx_, key);
  if (!observed || !observed->reading.tolerance) {
    forget(key);
    if (!observed) return ReconcileResult::done();
    report_problems(*observed);
    return label_unprotected(*observed);
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
    kube::Json patch =
        policy::job_annotations_patch(o.job->meta.resource_version, ledger, t.tolerance, nullptr);
    label_risk(patch, o, ledger, t.records);
    return after_write(write(o, patch), o.key);
  }
  // A Job whose label does not follow from its ledger (one made before respool labelled risk)
  // gets it alone; every later write carries it.
  if (kube::Json patch = {{"metadata", {{"resourceVersion", o.job->meta.resource_version}}}};
      label_risk(patch, o, t.ledger, t.records))
    return after_write(write(o, patch), o.key);
  const policy::JobStep step = policy::next_step(t, ctx_.clock->now());
  if (step.kind == Kind::WatchHang) return check_hang(o, step);
  return act(o, step);
}

Outcome<ReconcileResult> TrainingJobReconciler::act(const ObservedJob& o,
                                                    const policy::JobStep& s) {
  const policy::TrainingJob& t = o.training;
  const std::string& rv = o.job->meta.resource_version;
  auto annotations = [&](const std::vector<policy::RunningRecord>* records,
                         std::optional<bool> suspend = std::nullopt) {
    kube::Json patch = policy::job_annotations_patch(rv, s.ledger, t.tolerance, records, suspend);
    label_risk(patch, o, s.ledger, records ? *records : t.records);
    return write(o, patch);
  };
  kube::Result<void> written;
  switch (s.kind) {
    case Kind::None:
    case Kind::WatchHang:
      return ReconcileResult::done();
    case Kind::CloseRun:
    case Kind::OpenRun:
    case Kind::SayExhausted:
    case Kind::BeginKill:
      written = annotations(&s.records);
      break;
    case Kind::EndKill:
    case Kind::ResetHangCount:
    case Kind::ForgetRestart:
      written = annotations(nullptr);
      break;
    case Kind::BeginRestart:
      written = annotations(&s.records, true);
      break;
    case Kind::WaitOldPods:
      runtime::log::debug("trainingjob", "waiting for the old run's pods",
                          {{"job", o.key}, {"pods", s.waiting_for.size()}});
      return ReconcileResult::after(kRecheck);
    case Kind::ClearStartTime:
      written = write(o, policy::clear_start_time_patch(rv), true);
      break;
    case Kind::Resume: {
      kube::Json patch = policy::resume_patch(rv, s.ledger, t.tolerance, o.affinity);
      label_risk(patch, o, s.ledger, t.records);
      written = write(o, patch);
      break;
    }
    case Kind::Kill:
      return kill(o, s);
  }
  if (written) report_step(o, s);
  return after_write(written, o.key);
}

void TrainingJobReconciler::report_step(const ObservedJob& o, const policy::JobStep& s) {
  const policy::FaultTolerance& tolerance = o.training.tolerance;
  const auto ref = job_reference(*o.job);
  using Type = runtime::EventType;
  switch (s.kind) {
    case Kind::BeginRestart:
      report_restart(o, s);
      break;
    case Kind::SayExhausted:
      ctx_.events->event(ref, Type::Warning, "RestartsExhausted", "Restart",
                         policy::exhausted_note(s, tolerance));
      break;
    case Kind::Resume:
      ctx_.events->event(ref, Type::Normal, "Resumed", "Restart", policy::resume_note(s.ledger));
      break;
    case Kind::ForgetRestart:
      ctx_.events->event(ref, Type::Normal, "RestartTakenOver", "Restart",
                         "the job was resumed by someone else while respool restarted it");
      break;
    case Kind::BeginKill:
      ctx_.events->event(ref, Type::Warning, "Hung", "Restart", policy::hung_note(s, tolerance));
      ctx_.metrics->count_job_restart(o.pool, "proc_restart");
      break;
    default:
      break;
  }
}

void TrainingJobReconciler::report_restart(const ObservedJob& o, const policy::JobStep& s) {
  const policy::Fault& f = *s.fault;
  const std::string recover(policy::to_string(f.recover));
  const std::string note = policy::restart_note(s, o.training.tolerance);
  ctx_.events->event(job_reference(*o.job), runtime::EventType::Warning, "Restarting", "Restart",
                     note);
  if (auto pool = ctx_.caches.pools->store().get(o.pool)) {
    ctx_.events->event(reference_to(*pool), runtime::EventType::Normal, "JobRestarted", "Restart",
                       "job " + o.key + " " + note);
  }
  ctx_.metrics->count_job_restart(o.pool, recover);
  runtime::log::info("trainingjob", "restarting",
                     {{"job", o.key},
                      {"worker", f.worker},
                      {"reason", f.reason},
                      {"recover", recover},
                      {"run", s.ledger.run}});
}

bool TrainingJobReconciler::label_risk(kube::Json& patch, const ObservedJob& o,
                                       const policy::RestartLedger& ledger,
                                       const std::vector<policy::RunningRecord>& records) {
  const auto label = o.job->meta.labels.get(policy::kRiskLabel);
  const std::optional<policy::Risk> shown =
      label ? policy::parse_risk(*label) : std::optional<policy::Risk>();
  const policy::Risk risk = policy::training_job_risk(ledger, records, shown);
  if (shown == risk) return false;
  patch["metadata"]["labels"][policy::kRiskLabel] = std::string(policy::to_string(risk));
  return true;
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
