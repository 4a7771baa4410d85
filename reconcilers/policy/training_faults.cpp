#include "reconcilers/policy/training_faults.hpp"

#include <algorithm>

namespace respool::policy {

std::string_view to_string(Recover recover) {
  switch (recover) {
    case Recover::None:
      return "";
    case Recover::ProcRestart:
      return "proc_restart";
    case Recover::JobReschedule:
      return "job_reschedule";
    case Recover::JobRescheduleWithTaint:
      return "job_reschedule_with_taint";
  }
  return "";
}

std::optional<Recover> parse_recover(std::string_view text) {
  for (Recover r : {Recover::None, Recover::ProcRestart, Recover::JobReschedule,
                    Recover::JobRescheduleWithTaint})
    if (to_string(r) == text) return r;
  return std::nullopt;
}

std::optional<Fault> classify(const WorkerEnd& end, const FaultTolerance& tolerance) {
  Fault f;
  f.worker = end.index;
  f.node = end.node;
  if (!end.node_fault.empty()) {
    // J2/J4: the node's own fault; its isolation taint keeps the next run off it.
    f.reason = "node " + end.node + " " + end.node_fault;
    f.recover = Recover::JobRescheduleWithTaint;
    return f;
  }
  if (!end.disruption.empty()) {
    // A disruption on a node that looks healthy: kept out of the next run by a NotIn term.
    f.reason = "disrupted on node " + end.node + " (" + end.disruption + ")";
    f.recover = Recover::JobRescheduleWithTaint;
    f.exclude_node = true;
    return f;
  }
  if (end.failed && tolerance.unconditional) {
    f.reason = end.exit_code ? "exit with " + std::to_string(*end.exit_code) : "failed";
    f.recover = Recover::JobReschedule;
    return f;
  }
  return std::nullopt;
}

RestartDecision decide_restart(std::span<const Fault> faults, const FaultTolerance& tolerance,
                               const RestartLedger& ledger) {
  RestartDecision d;
  // Without job-retry-num the job asked for no restarts upon faults (hang-retry alone).
  if (faults.empty() || ledger.restarting_since || tolerance.retries == 0) return d;
  d.fault = *std::min_element(faults.begin(), faults.end(),
                              [](const Fault& a, const Fault& b) { return a.worker < b.worker; });
  if (ledger.retries_used >= tolerance.retries) {
    if (!ledger.exhausted_said) d.kind = RestartDecision::Kind::Exhausted;
    return d;
  }
  d.kind = RestartDecision::Kind::Restart;
  return d;
}

HangDecision decide_hang(std::span<const WorkerLog> running, const FaultTolerance& tolerance,
                         const RestartLedger& ledger, std::optional<TimePoint> last_hang_restart,
                         bool restart_policy_never, TimePoint now) {
  HangDecision d;
  if (running.empty()) return d;
  TimePoint latest = running.front().last_output, earliest = running.front().last_output;
  bool all_wrote = true;
  for (const WorkerLog& w : running) {
    latest = std::max(latest, w.last_output);
    earliest = std::min(earliest, w.last_output);
    all_wrote = all_wrote && !w.silent;
  }
  const auto window = tolerance.hang_timeout;
  if (now - latest < window) {
    // Not hung: when it could be, at the earliest.
    d.next_check = latest + window;
    // J5: every worker logged since the last hang restart, for a whole window: the count resets.
    // A container that restarted and has written nothing yet is no progress.
    d.reset_count = all_wrote && ledger.hang_restarts > 0 && last_hang_restart &&
                    earliest > *last_hang_restart && now - *last_hang_restart >= window;
    return d;
  }
  d.hung = true;
  if (!tolerance.hang_retry || ledger.hang_restarts >= kMaxConsecutiveHangRestarts) return d;
  if (restart_policy_never) {
    // J6: in place is impossible; a job-level restart, which uses a retry.
    if (ledger.retries_used >= tolerance.retries || ledger.restarting_since) return d;
    d.restart = true;
    d.recover = Recover::JobReschedule;
    d.before_downgrade = Recover::ProcRestart;
    return d;
  }
  d.restart = true;
  d.recover = Recover::ProcRestart;
  return d;
}

}  // namespace respool::policy
