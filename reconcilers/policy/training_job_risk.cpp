#include "reconcilers/policy/training_job_risk.hpp"

#include <set>
#include <string_view>

namespace respool::policy {

std::string fault_node(const RunningRecord& record) {
  std::string_view reason = record.end_reason;
  for (std::string_view prefix : {"node ", "disrupted on node "}) {
    if (!reason.starts_with(prefix)) continue;
    reason.remove_prefix(prefix.size());
    return std::string(reason.substr(0, reason.find(' ')));
  }
  return "";
}

Risk training_job_risk(const RestartLedger& ledger, const std::vector<RunningRecord>& records,
                       std::optional<Risk> shown, std::optional<MonitorFindings> found) {
  RiskFacts facts;
  facts.protected_job = true;
  facts.fault_restarts = ledger.retries_used + ledger.hang_restarts;
  std::set<std::string> faulted;
  for (const RunningRecord& r : records) {
    if (r.end_recover != Recover::None) ++facts.fault_restarts;
    const std::string node = fault_node(r);
    if (!node.empty() && !faulted.insert(node).second) facts.node_fault_recurred = true;
  }
  facts.retries_exhausted = ledger.exhausted_said;
  facts.recorded = shown;
  if (found) {
    facts.code_error = found->code_error;
    facts.straggler = found->straggler;
    facts.check_running = found->check_running;
  } else {
    facts.check_running = shown == Risk::Monitoring;
  }
  return grade_risk(facts);
}

}  // namespace respool::policy
