#pragma once
// The training-job controller (issue 17; rules J1–J8). Its key is a Job ("namespace/name");
// it acts only on batch/v1 Jobs whose pod template selects a pool (nodeSelector respool.io/pool)
// and whose metadata carries a fault-tolerance/* annotation.
//   observe  the Job (its tolerance, the ledger and records in its annotations), its pods and
//            the state of their nodes, from the caches; for hang checks, the workers' last log
//            line (pods/log)
//   decide   policy::next_step / after_hang_check: one step at a time
//   act      the step's one write, guarded by the Job's resourceVersion (suspend, clear
//            startTime, resume with the template's run label and NotIn term), or the kills
//            of an in-place restart (pods/exec)
//   report   events on the Job (and a JobRestarted event on its pool, which `kubectl describe`
//            lists), the running records, metrics, and the risk label (respool.io/risk, O2,
//            O5) in the same write as the ledger it follows from
// All progress lives on the Job, so a restarted operator neither repeats nor forgets a restart.

#include <expected>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/training_job_step.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"

namespace respool::reconcilers {

class TrainingJobReconciler {
 public:
  explicit TrainingJobReconciler(Context& context) : ctx_(context) {}
  Outcome<runtime::ReconcileResult> reconcile(const std::string& key);

  // Whether the informer keeps a Job's body: only training jobs' (the rest keep metadata and
  // the pool they select).
  static bool is_candidate(const kube::ObjectMeta& meta);
  // O1: a pool Job without fault-tolerance annotations that is not labelled Unprotected yet.
  static bool needs_unprotected_label(const kube::Unstructured& job);

 private:
  Outcome<runtime::ReconcileResult> reconcile_job(const std::string& key);
  Outcome<runtime::ReconcileResult> act(const ObservedJob& job, const policy::JobStep& step);
  Outcome<runtime::ReconcileResult> check_hang(const ObservedJob& job, const policy::JobStep& step);
  // The events, logs and metrics of a step once written.
  void report_step(const ObservedJob& job, const policy::JobStep& step);
  void report_restart(const ObservedJob& job, const policy::JobStep& step);
  Outcome<runtime::ReconcileResult> kill(const ObservedJob& job, const policy::JobStep& step);
  kube::Result<void> write(const ObservedJob& job, const kube::Json& patch, bool status = false);
  // O2, O5: the risk label that a write of `ledger` and `records` implies, added to `patch`
  // when the Job shows another one; false when it shows that one already.
  static bool label_risk(kube::Json& patch, const ObservedJob& job,
                         const policy::RestartLedger& ledger,
                         const std::vector<policy::RunningRecord>& records);
  void report_problems(const ObservedJob& job);
  // O1: the label of a pool Job that respool does not protect.
  Outcome<runtime::ReconcileResult> label_unprotected(const ObservedJob& job);
  void track(const std::string& key, const std::string& pool);  // respool_fault_tolerant_jobs
  void forget(const std::string& key);

  Context& ctx_;
  std::mutex mu_;
  std::map<std::string, std::string> pools_;             // tracked job key → its pool
  std::set<std::string> said_;                           // problems already reported (uid + text)
  std::map<std::string, policy::TimePoint> hung_since_;  // key → silence counted in the metric
  std::set<std::string> killed_;  // "uid/pod#restartCount" stopped: never twice per container
};

}  // namespace respool::reconcilers
