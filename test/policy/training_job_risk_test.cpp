// A fault-tolerant job's risk as its ledger and running records show it (O2, O5): the node a
// run ended on, restarts upon faults and hangs, retries used up, a node faulting the job twice,
// and the label's floor.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/training_job_risk.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;

namespace {
RunningRecord ended(const std::string& reason, Recover recover) {
  RunningRecord r;
  r.start_at = kT0;
  r.end_at = kT0;
  r.end_reason = reason;
  r.end_recover = recover;
  return r;
}
}  // namespace

TEST_CASE("O2: the node a run ended on, from J2's reasons", "[policy][risk][rule:O2]") {
  CHECK(fault_node(ended("node n-3 not ready (A050202)", Recover::JobRescheduleWithTaint)) ==
        "n-3");
  CHECK(fault_node(ended("disrupted on node g-1 (EvictionByEvictionAPI)",
                         Recover::JobRescheduleWithTaint)) == "g-1");
  CHECK(fault_node(ended("exit with 1", Recover::JobReschedule)).empty());
  CHECK(fault_node(ended("no output for 30m0s", Recover::ProcRestart)).empty());
}

TEST_CASE("O2 O5: a fault-tolerant job's risk from its ledger and records",
          "[policy][risk][rule:O2][rule:O5]") {
  RestartLedger ledger;
  std::vector<RunningRecord> records{RunningRecord{}};
  CHECK(training_job_risk(ledger, records, std::nullopt) == Risk::NoRisk);

  // A restart upon a node fault, then one upon an exit: Medium.
  ledger.retries_used = 1;
  records = {ended("node n-3 not ready (A050202)", Recover::JobRescheduleWithTaint)};
  CHECK(training_job_risk(ledger, records, Risk::NoRisk) == Risk::Medium);
  ledger.retries_used = 2;
  records.push_back(ended("exit with 1", Recover::JobReschedule));
  CHECK(training_job_risk(ledger, records, Risk::Medium) == Risk::Medium);
  // The same node faults the job again: High.
  records.push_back(ended("node n-3 not ready (A050202)", Recover::JobRescheduleWithTaint));
  CHECK(training_job_risk(ledger, records, Risk::Medium) == Risk::High);

  // An in-place restart upon a hang is Medium, and stays so once the hang count resets.
  RestartLedger hung;
  hung.hang_restarts = 1;
  CHECK(training_job_risk(hung, {ended("no output for 1m0s", Recover::ProcRestart)},
                          std::nullopt) == Risk::Medium);
  hung.hang_restarts = 0;
  CHECK(training_job_risk(hung, {ended("no output for 1m0s", Recover::ProcRestart)},
                          std::nullopt) == Risk::Medium);

  // Retries used up: High, and the label never goes lower while the Job exists.
  RestartLedger exhausted;
  exhausted.retries_used = 2;
  exhausted.exhausted_said = true;
  CHECK(training_job_risk(exhausted, {}, std::nullopt) == Risk::High);
  CHECK(training_job_risk(RestartLedger{}, {}, Risk::High) == Risk::High);
}

TEST_CASE(
    "O6: Monitoring stays while a check runs and nothing is found; only the diagnosis "
    "controller, which sees the checks, ends it",
    "[policy][risk][rule:O6]") {
  RestartLedger none;
  // The training-job controller does not see the checks: the label it finds stays.
  CHECK(training_job_risk(none, {}, Risk::Monitoring) == Risk::Monitoring);
  // The diagnosis controller does.
  CHECK(training_job_risk(none, {}, Risk::NoRisk,
                          MonitorFindings{.code_error = std::nullopt,
                                          .straggler = false,
                                          .check_running = true}) == Risk::Monitoring);
  CHECK(training_job_risk(none, {}, Risk::Monitoring, MonitorFindings{}) == Risk::NoRisk);
  // A found anomaly shows its level instead.
  RestartLedger restarted;
  restarted.retries_used = 1;
  CHECK(training_job_risk(restarted, {}, Risk::Monitoring) == Risk::Medium);
  CHECK(training_job_risk(
            none, {}, Risk::Monitoring,
            MonitorFindings{.code_error = Risk::Low, .straggler = false, .check_running = true}) ==
        Risk::Low);
}
