#pragma once
// Decisions of the training-job controller (issue 17), pure: what counts as a fault (J2), whether
// and how a job is restarted (J3, J4, J6), when it hangs (J5). The controller observes the Job,
// its worker pods, their nodes and their logs' last lines, and persists what it decided on the
// Job (RestartLedger), so that a restarted operator neither repeats nor forgets a restart.

#include <chrono>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reconcilers/policy/fault_tolerance.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// The recovery used after a run ends (the documents' end_recover values respool uses).
enum class Recover { None, ProcRestart, JobReschedule, JobRescheduleWithTaint };
std::string_view to_string(Recover recover);  // "", "proc_restart", "job_reschedule", ...
std::optional<Recover> parse_recover(std::string_view text);  // nullopt: not one of them

// A worker pod that ended or was removed, as observed.
struct WorkerEnd {
  int index = 0;  // its completion index: worker-<index>
  std::string pod, node;
  bool failed = false;           // phase Failed (or a terminated container that failed)
  std::optional<int> exit_code;  // of the failed container, when known
  std::string disruption;        // the DisruptionTarget condition's reason, if True
  std::string node_fault;        // why its node is abnormal (F1 code, F2), "" if healthy
};

struct Fault {
  int worker = 0;
  std::string node;
  std::string reason;  // the record's endReason: "node n-3 not ready (A050202)", "exit with 1"
  Recover recover = Recover::JobReschedule;
  bool exclude_node = false;  // J4: a healthy-looking node kept out of the next run (NotIn term)
  bool operator==(const Fault&) const = default;
};

// J2 and J4: the fault this worker's end is, or nullopt (it is not one: a plain failure without
// unconditional retry, or a success).
std::optional<Fault> classify(const WorkerEnd& end, const FaultTolerance& tolerance);

// A job-level restart under way: the Job is suspended until its old pods are gone.
struct Restarting {
  Fault fault;
  Recover before_downgrade = Recover::None;  // J6: proc_restart when a hang was downgraded
  bool operator==(const Restarting&) const = default;
};

// An in-place restart under way (J5): each running worker whose restarts still number what
// they did when it was decided has its process stopped, once.
struct Killing {
  TimePoint at{};
  std::map<int, int> restart_counts;  // worker index → its pod's restartCount at the decision
  bool operator==(const Killing&) const = default;
};

// What respool persists on the Job (annotation respool.io/fault-tolerance) about its restarts.
struct RestartLedger {
  int retries_used = 0;
  int hang_restarts = 0;  // consecutive in-place restarts upon a hang (J5)
  bool exhausted_said = false;
  std::optional<TimePoint> restarting_since;  // a job_reschedule under way (suspended)
  // Which run the Job's pods belong to: pods carry it as the label respool.io/run (none: 0),
  // set on the pod template when a restarted Job resumes.
  int run = 0;
  std::optional<Restarting> restarting;  // set with restarting_since
  std::optional<TimePoint> last_hang_restart;
  std::optional<Killing> killing;
  std::vector<std::string> excluded_nodes;  // kept out by a NotIn term (J4), in order
  bool job_rules_warned = false;            // J8's event was given
  bool operator==(const RestartLedger&) const = default;
};

struct RestartDecision {
  enum class Kind { None, Restart, Exhausted } kind = Kind::None;
  Fault fault;  // Restart/Exhausted: the one that decided it
};

// J3: at most one restart for the faults seen together (the lowest worker index decides it);
// each uses a retry; none left: Exhausted, said once (then None). A restart under way takes no
// new one; a job without job-retry-num (hang-retry alone) none at all.
RestartDecision decide_restart(std::span<const Fault> faults, const FaultTolerance& tolerance,
                               const RestartLedger& ledger);

// J5: a running worker's last log line (or its start, before any line).
struct WorkerLog {
  int index = 0;
  TimePoint last_output{};
  // Nothing written within the window: last_output is then the container's start (or the
  // window's beginning), which is no sign of progress.
  bool silent = false;
};
struct HangDecision {
  bool hung = false;
  bool restart = false;  // restart in place now (hang-retry, fewer than 3 consecutive)
  Recover recover = Recover::None;
  Recover before_downgrade = Recover::None;  // J6
  bool reset_count = false;  // the job logged for a whole window since the last hang restart
  std::optional<TimePoint> next_check;
};
inline constexpr int kMaxConsecutiveHangRestarts = 3;
HangDecision decide_hang(std::span<const WorkerLog> running, const FaultTolerance& tolerance,
                         const RestartLedger& ledger, std::optional<TimePoint> last_hang_restart,
                         bool restart_policy_never, TimePoint now);

}  // namespace respool::policy
