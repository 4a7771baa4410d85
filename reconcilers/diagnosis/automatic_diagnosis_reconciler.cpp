#include "reconcilers/diagnosis/automatic_diagnosis_reconciler.hpp"

#include <algorithm>

#include "operator/kube/resource.hpp"
#include "operator/runtime/log.hpp"
#include "reconcilers/diagnosis/report_writer.hpp"
#include "reconcilers/diagnosis/standard_diagnosis_reconciler.hpp"
#include "reconcilers/diagnosis/worker_failure.hpp"
#include "reconcilers/policy/diagnosis_report.hpp"
#include "reconcilers/policy/training_job_risk.hpp"

namespace respool::reconcilers {

using Json = nlohmann::json;
using runtime::ReconcileResult;

namespace {

policy::Risk higher(std::optional<policy::Risk> level, policy::Risk risk) {
  return level ? policy::more_severe(*level, risk) : risk;
}

}  // namespace

Outcome<ReconcileResult> AutomaticDiagnosisReconciler::reconcile(const std::string& key) {
  auto result = reconcile_job(key);
  if (result) return result;
  if (result.error().lost_race()) return ReconcileResult{true, {}};  // decided again from newer
  // Said on the Job too, where `kubectl describe job` shows it (a 403 names the permission).
  if (auto job = ctx_.caches.training_jobs->store().get(key))
    ctx_.events->event(job_reference(*job), runtime::EventType::Warning, "ReconcileFailed",
                       "Diagnose", result.error().message);
  return result;
}

Outcome<ReconcileResult> AutomaticDiagnosisReconciler::reconcile_job(const std::string& key) {
  auto observed = observe_job(ctx_, key);
  // O1: only the jobs respool protects are monitored.
  if (!observed || !observed->reading.tolerance) {
    std::lock_guard lock(mu_);
    next_check_.erase(key);
    return ReconcileResult::done();
  }
  const ObservedJob& o = *observed;
  if (auto r = report_fault_restarts(o); !r) return std::unexpected(r.error());
  if (auto r = report_code_errors(o); !r) return std::unexpected(r.error());
  auto next_check = check_performance(o);
  if (!next_check) return std::unexpected(next_check.error());
  if (auto r = raise_label(o, found(o)); !r) return std::unexpected(r.error());
  if (*next_check) return ReconcileResult::after(**next_check);
  return ReconcileResult::done();
}

Outcome<void> AutomaticDiagnosisReconciler::report_fault_restarts(const ObservedJob& o) {
  const std::string ns = o.job->meta.namespace_.str();
  const auto& records = o.training.records;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string node = policy::fault_node(records[i]);
    if (!records[i].end_at || node.empty()) continue;
    const std::string name = policy::fault_restart_name(o.job->meta.name, i + 1);
    if (reported(ns, name)) continue;
    policy::Gathered g;
    g.started = ctx_.clock->now();
    // The node's findings, where it still shows them (a GET: the shared cache keeps no
    // conditions but Ready).
    std::vector<policy::NodeFinding> findings;
    auto object = ctx_.client->get(kube::resources::nodes, "", node);
    ++g.requests;
    if (object)
      findings = policy::node_findings(*object);
    else if (!object.error().is(kube::Error::Kind::NotFound))
      return failed("reading node " + node + " for diagnosis " + ns + "/" + name, object.error());
    auto result = policy::fault_restart_result(records[i], findings);
    if (!result) continue;
    g.results.push_back(std::move(*result));
    if (auto r = write_automatic(o, name, policy::Monitor::FaultMonitoring, "FaultRestart",
                                 records[i].end_reason, std::move(g));
        !r)
      return r;
  }
  return {};
}

Outcome<void> AutomaticDiagnosisReconciler::write_automatic(
    const ObservedJob& o, const std::string& name, policy::Monitor monitor,
    const std::string& reason, const std::string& description, policy::Gathered g) {
  const std::string ns = o.job->meta.namespace_.str();
  g.job =
      report_job_info(*o.job, *ctx_.catalog->get(), static_cast<int>(o.training.workers.size()));
  g.monitor = monitor;
  g.reason = reason;
  g.creator = "respool";
  g.completed = ctx_.clock->now();
  const Json object_json = policy::automatic_diagnosis(name, ns, o.job->meta.name,
                                                       o.job->meta.uid.str(), monitor, description);
  auto cached = diagnoses_.store().get(ns + "/" + name);
  auto written = write_report(ctx_, object_json, policy::completed_status(std::move(g)),
                              cached.get(), job_reference(*o.job));
  if (!written) return std::unexpected(written.error());
  remember(ns, name);
  return {};
}

AutomaticDiagnosisReconciler::Found AutomaticDiagnosisReconciler::found(const ObservedJob& o) {
  Found f;
  {
    std::lock_guard lock(mu_);
    if (auto it = found_.find(o.key); it != found_.end()) f = it->second;
  }
  // What the reports written before say (a restarted operator, another replica).
  for (const auto& d : diagnoses_.store().by_index(kByJob, o.key)) {
    if (StandardDiagnosisReconciler::pending(*d)) f.check_running = true;
    const auto monitor = d->meta.labels.get(policy::kDiagnosisMonitorLabel);
    const Json& status = d->object.value("status", Json::object());
    const auto risk = policy::parse_risk(status.value("risk", ""));
    if (!risk || !policy::is_anomaly_level(*risk)) continue;
    if (monitor == policy::to_string(policy::Monitor::CodeErrorDetection))
      f.code_error = higher(f.code_error, *risk);
    if (monitor == policy::to_string(policy::Monitor::PerformanceMonitoring)) f.straggler = true;
  }
  return f;
}

Outcome<void> AutomaticDiagnosisReconciler::report_code_errors(const ObservedJob& o) {
  const std::string ns = o.job->meta.namespace_.str();
  auto catalog = ctx_.catalog->get();
  // J5's in-place restarts stop the process with a signal: those exits are respool's own (the
  // pod's restart may be cached before the Job's ledger says so: hang-retry alone decides).
  const bool stopped_by_respool =
      o.training.tolerance.hang_retry || o.training.ledger.killing ||
      o.training.ledger.last_hang_restart ||
      std::any_of(o.training.records.begin(), o.training.records.end(),
                  [](const auto& r) { return r.end_recover == policy::Recover::ProcRestart; });
  for (const policy::Worker& w : o.training.workers) {
    // A node's fault or a disruption is the fault monitor's: the worker's code did not fail.
    if (!w.disruption.empty() || !w.node_fault.empty()) continue;
    // A failed pod's run is its restart_count-th; a container restarted in place (OnFailure)
    // failed in the run before the one it runs now.
    const bool in_place = !w.failed && w.restart_count > 0 && !w.deleting;
    if (!w.failed && !in_place) continue;
    const std::string name =
        policy::code_error_name(w.pod, in_place ? w.restart_count - 1 : w.restart_count);
    if (reported(ns, name)) continue;
    policy::Gathered g;
    g.started = ctx_.clock->now();
    auto run = read_failed_run(*ctx_.client, ns, w.pod, o.container);
    if (!run) {
      if (lost_race(run.error())) continue;  // the pod is gone: nothing left to read
      return failed("reading the failed run of pod " + ns + "/" + w.pod, run.error());
    }
    const bool signalled = *run &&
                           ((*run)->failure.exit_code == 137 || (*run)->failure.exit_code == 143) &&
                           (*run)->failure.reason != "OOMKilled";
    auto finding = *run && catalog->failures && !(in_place && signalled && stopped_by_respool)
                       ? policy::match_failure(*catalog->failures, (*run)->failure, (*run)->log)
                       : std::nullopt;
    if (!finding) {
      remember(ns, name);  // read once: a failure no entry recognises is not read again
      if (!*run) continue;
      runtime::log::info(
          "diagnosis", "failure not recognised",
          {{"job", o.key}, {"pod", w.pod}, {"exit", (*run)->failure.exit_code.value_or(0)}});
      continue;
    }
    policy::FaultyDevice device;
    device.node = w.node;
    device.pod = w.pod;
    if (w.index >= 0) device.worker = w.index;
    device.exit_code = (*run)->failure.exit_code;
    auto result = policy::code_error_result(*catalog->failures, *finding, std::move(device));
    const policy::Risk risk = result.risk;
    g.results.push_back(std::move(result));
    g.requests = (*run)->requests;
    g.log_bytes = (*run)->log_bytes;
    if (auto r = write_automatic(o, name, policy::Monitor::CodeErrorDetection, "CodeError",
                                 "worker " + w.pod + " failed", std::move(g));
        !r)
      return r;
    std::lock_guard lock(mu_);
    auto& f = found_[o.key];
    f.code_error = higher(f.code_error, risk);
  }
  return {};
}

Outcome<void> AutomaticDiagnosisReconciler::raise_label(const ObservedJob& o, const Found& f) {
  const auto label = o.job->meta.labels.get(policy::kRiskLabel);
  const std::optional<policy::Risk> shown =
      label ? policy::parse_risk(*label) : std::optional<policy::Risk>();
  // A Job not labelled yet is the training-job controller's to label first (at first sight).
  if (!shown) return {};
  if (!f.code_error && !f.straggler && !f.check_running && shown != policy::Risk::Monitoring)
    return {};
  const policy::MonitorFindings findings{
      .code_error = f.code_error, .straggler = f.straggler, .check_running = f.check_running};
  const policy::Risk risk =
      policy::training_job_risk(o.training.ledger, o.training.records, shown, findings);
  if (shown == risk) return {};
  const Json patch = {{"metadata",
                       {{"resourceVersion", o.job->meta.resource_version},
                        {"labels", {{policy::kRiskLabel, std::string(policy::to_string(risk))}}}}}};
  auto r = ctx_.client->patch(kube::resources::jobs, o.job->meta.namespace_.view(),
                              o.job->meta.name, kube::PatchType::Merge, patch);
  if (!r) return failed("labelling job " + o.key + " " + policy::kRiskLabel, r.error());
  return {};
}

bool AutomaticDiagnosisReconciler::reported(const std::string& ns, const std::string& name) {
  {
    std::lock_guard lock(mu_);
    if (done_.contains(ns + "/" + name)) return true;
  }
  auto d = diagnoses_.store().get(ns + "/" + name);
  return d && d->object.value("status", Json::object()).value("phase", "") == "Completed";
}

void AutomaticDiagnosisReconciler::remember(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  done_.insert(ns + "/" + name);
}

}  // namespace respool::reconcilers
