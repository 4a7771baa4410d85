#pragma once
// Automatic diagnosis (issue 29; O3, O9, O10). Its key is a training Job ("namespace/name"), one
// that respool protects (J1: a pool Job with fault tolerance; O1: no other gets a report).
//   observe  the Job, its workers and running records from the caches (the training-job
//            controller's view); the Diagnoses of the cache (their phase only)
//   decide   which anomalies have no Completed report yet: each run that ended on a node's
//            fault (its record), each failed worker (phase Failed, not a node's fault or a
//            disruption: those are the fault monitor's), each straggler (O4, once a window, in a
//            Job that asks for performance monitoring: performance_monitor.cpp)
//   act      per anomaly: the node's findings (a GET of the Node) or the worker's failed run (a
//            GET of the pod and of the end of its log, O8) matched against the catalogue, or
//            the workers' log rates (worker_activity); the report written (report_writer)
//   report   the Diagnosed event, and the Job's respool.io/risk label raised to the level found
//            (O5: never lowered), or Monitoring while a Standard diagnosis of the Job gathers and
//            nothing is found (O6), guarded by the Job's resourceVersion
// A restarted operator finds the reports it wrote (one name per anomaly) and writes no other;
// a failure no entry recognises is read once per operator run and gets no report.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/diagnosis/accelerator_use.hpp"
#include "reconcilers/policy/performance.hpp"
#include "reconcilers/policy/risk.hpp"
#include "reconcilers/trainingjob/training_job_observed.hpp"

namespace respool::reconcilers {

class AutomaticDiagnosisReconciler {
 public:
  // `accelerator_use`: where the workers' accelerator use is read (O4); null: their log rates.
  AutomaticDiagnosisReconciler(Context& ctx, const runtime::Informer<kube::Unstructured>& diagnoses,
                               std::unique_ptr<AcceleratorUse> accelerator_use)
      : ctx_(ctx), diagnoses_(diagnoses), accelerator_use_(std::move(accelerator_use)) {}
  Outcome<runtime::ReconcileResult> reconcile(const std::string& key);

 private:
  Outcome<runtime::ReconcileResult> reconcile_job(const std::string& key);
  // What the code-error detector and the performance monitor reported of a Job, now or before.
  struct Found {
    std::optional<policy::Risk> code_error;  // the highest level of the recognised failures (O3)
    bool straggler = false;                  // O4
    bool check_running = false;              // O6: a Standard diagnosis of it is gathering
  };
  Outcome<void> report_fault_restarts(const ObservedJob& job);
  Outcome<void> report_code_errors(const ObservedJob& job);
  // O4: when the Job's next check is due, the workers' log rates over the window and a report
  // for each straggler; the time until the next check (nullopt: the Job is not monitored).
  Outcome<std::optional<std::chrono::nanoseconds>> check_performance(const ObservedJob& job);
  // The compared workers' activity: accelerator use where Prometheus has it for at least two of
  // them, else their log rates (nullopt: a pod went away meanwhile).
  Outcome<std::optional<policy::Measure>> read_activity(
      const ObservedJob& job, const std::vector<const policy::Worker*>& compared,
      std::chrono::seconds window, std::vector<policy::WorkerActivity>& activities,
      policy::Gathered& read);
  Outcome<void> report_straggler(const ObservedJob& job, const policy::WorkerActivity& worker,
                                 const policy::Straggler& straggler, std::chrono::seconds window,
                                 policy::Measure measure, const policy::Gathered& read);
  // The Automatic report `name` (O9) with `g`'s results: the Job's information, the monitor,
  // reason and completion set here; remembered once written.
  Outcome<void> write_automatic(const ObservedJob& job, const std::string& name,
                                policy::Monitor monitor, const std::string& reason,
                                const std::string& description, policy::Gathered g);
  Found found(const ObservedJob& job);
  Outcome<void> raise_label(const ObservedJob& job, const Found& found);
  // Whether the report is written (Completed in the cache, or written by this process).
  bool reported(const std::string& ns, const std::string& name);
  void remember(const std::string& ns, const std::string& name);

  Context& ctx_;
  const runtime::Informer<kube::Unstructured>& diagnoses_;
  std::unique_ptr<AcceleratorUse> accelerator_use_;
  std::mutex mu_;
  std::set<std::string> done_;          // "ns/name" of reports written and of failures read
  std::map<std::string, Found> found_;  // job key → what was written here
  std::map<std::string, policy::TimePoint> next_check_;  // job key → its next O4 check
  std::set<std::string> warned_;  // "job key: problem" of invalid annotations said (O12)
};

}  // namespace respool::reconcilers
