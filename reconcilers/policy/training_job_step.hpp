#pragma once
// The training-job controller's next step for one Job (J2–J7), pure: from the Job's annotations
// (its tolerance, its RestartLedger, its running records) and its worker pods as observed, what
// to write or do next. A job-level restart goes: BeginRestart (suspend; the ledger and the
// record say why, in one guarded write) → WaitOldPods → ClearStartTime (only where a node is to
// be excluded: the Job's scheduling fields are editable while status.startTime is unset) →
// Resume (the pod template's run label, the NotIn term, unsuspend). An in-place restart upon a
// hang goes: BeginKill (ledger, record) → Kill (each worker not yet restarted) → EndKill. Every
// step is decided again from what the cluster shows, so a restarted operator resumes exactly.

#include <optional>
#include <string>
#include <vector>

#include "reconcilers/policy/fault_tolerance.hpp"
#include "reconcilers/policy/running_records.hpp"
#include "reconcilers/policy/training_faults.hpp"

namespace respool::policy {

// A pod of the Job as the controller observes it.
struct Worker {
  int index = -1;  // batch.kubernetes.io/job-completion-index; -1 when absent
  std::string pod, node;
  int run = 0;           // the pod's respool.io/run label (absent: 0)
  bool running = false;  // phase Running and not being deleted
  bool succeeded = false, failed = false;
  bool deleting = false;
  std::optional<int> exit_code;
  std::string disruption;         // its DisruptionTarget reason, when True
  std::string node_fault;         // why its node is abnormal (F1 codes, F2), "" when healthy
  bool node_unreachable = false;  // F2: not ready or unreachable; its kubelet cannot confirm
  int restart_count = 0;
};

struct TrainingJob {
  FaultTolerance tolerance;
  RestartLedger ledger;
  std::vector<RunningRecord> records;
  bool suspended = false;
  bool start_time_set = false;          // status.startTime
  std::optional<std::string> finished;  // "job completed", "job failed: BackoffLimitExceeded"
  bool restart_policy_never = false;
  std::vector<Worker> workers;
};

struct JobStep {
  enum class Kind {
    None,            // nothing to do
    CloseRun,        // the Job finished: its open run ends (records)
    BeginRestart,    // suspend; ledger and records (J3, J4, J6)
    SayExhausted,    // no retries left: said once (ledger, records, event)
    WaitOldPods,     // restarting: the old run's pods are still there (waiting_for)
    ClearStartTime,  // restarting: status.startTime to null, so the template may change
    Resume,          // the template's run label and excluded nodes, unsuspend; ledger
    ForgetRestart,   // someone resumed the Job by hand: the ledger lets the restart go
    OpenRun,         // the current run's workers run: a record starts (records)
    Kill,            // an in-place restart: stop the process of these workers (kill)
    EndKill,         // every worker restarted: the ledger lets the in-place restart go
    ResetHangCount,  // J5: the job logged for a whole window since its last hang restart
    WatchHang,       // read the running workers' logs (check) and decide with decide_hang
    BeginKill,       // a hang: restart in place (ledger with the workers' restarts, records)
  };
  Kind kind = Kind::None;
  RestartLedger ledger;                // what the ledger becomes (steps that write it)
  std::vector<RunningRecord> records;  // what the records become (steps that write them)
  std::optional<Fault> fault;          // BeginRestart, SayExhausted
  Recover before_downgrade = Recover::None;
  std::vector<const Worker*> kill;       // Kill
  std::vector<const Worker*> check;      // WatchHang: the current run's running workers
  std::vector<std::string> waiting_for;  // WaitOldPods: pod names
};
std::string_view to_string(JobStep::Kind kind);

// The step for `job` at `now`, before any log is read.
JobStep next_step(const TrainingJob& job, TimePoint now);

// After a WatchHang step's logs were read: the step decide_hang's answer leads to (BeginKill,
// a downgraded BeginRestart, ResetHangCount, or None). `silent` is the lowest index of a silent
// worker (the record's endRelatedTask).
JobStep after_hang_check(const TrainingJob& job, const HangDecision& hang, int silent,
                         TimePoint now);

// The recorded reason of a hang: "no output for 30m0s".
std::string hang_reason(const FaultTolerance& tolerance);

}  // namespace respool::policy
