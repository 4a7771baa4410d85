#include "reconcilers/policy/training_job_notes.hpp"

namespace respool::policy {

namespace {

std::string retries_text(const RestartLedger& ledger, const FaultTolerance& t) {
  return "restart " + std::to_string(ledger.retries_used) + " of " + std::to_string(t.retries);
}

}  // namespace

std::string restart_note(const JobStep& s, const FaultTolerance& tolerance) {
  const Fault& f = *s.fault;
  std::string note = "worker-" + std::to_string(f.worker) + ": " + f.reason +
                     "; restarting the job (" + std::string(to_string(f.recover));
  if (s.before_downgrade != Recover::None)
    note += ", downgraded from " + std::string(to_string(s.before_downgrade));
  note += "), " + retries_text(s.ledger, tolerance);
  if (f.exclude_node) note += "; node " + f.node + " is kept out of the next run";
  return note;
}

std::string exhausted_note(const JobStep& s, const FaultTolerance& tolerance) {
  return "worker-" + std::to_string(s.fault->worker) + ": " + s.fault->reason +
         "; not restarted: all " + std::to_string(tolerance.retries) +
         " restarts (fault-tolerance/job-retry-num) are used";
}

std::string resume_note(const RestartLedger& ledger) {
  std::string note = "run " + std::to_string(ledger.run) + " starts";
  if (ledger.excluded_nodes.empty()) return note;
  note += ledger.excluded_nodes.size() > 1 ? "; kept off nodes" : "; kept off node";
  for (std::size_t i = 0; i < ledger.excluded_nodes.size(); ++i)
    note += (i ? ", " : " ") + ledger.excluded_nodes[i];
  return note;
}

std::string hung_note(const JobStep& s, const FaultTolerance& tolerance) {
  return hang_reason(tolerance) +
         " from any worker; restarting in place (proc_restart), hang restart " +
         std::to_string(s.ledger.hang_restarts) + " of " +
         std::to_string(kMaxConsecutiveHangRestarts);
}

}  // namespace respool::policy
