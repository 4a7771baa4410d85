// A training job's risk level (O1-O6): unprotected jobs, each monitor's grade, the highest one
// winning, a shown level never lowered, and Monitoring only while a check runs with nothing found.

#include <catch2/catch.hpp>

#include "reconcilers/policy/risk.hpp"

using namespace respool::policy;

namespace {
RiskFacts protected_job() {
  RiskFacts f;
  f.protected_job = true;
  return f;
}
}  // namespace

TEST_CASE("O1: a job without fault tolerance is Unprotected, whatever else is known",
          "[policy][risk][rule:O1]") {
  RiskFacts f;
  f.fault_restarts = 2;
  f.code_error = Risk::High;
  f.check_running = true;
  CHECK(grade_risk(f) == Risk::Unprotected);
  CHECK(grade_risk(protected_job()) == Risk::NoRisk);
}

TEST_CASE("O2: a fault restart is Medium; retries used up or a node faulting twice is High",
          "[policy][risk][rule:O2]") {
  RiskFacts f = protected_job();
  f.fault_restarts = 1;
  CHECK(grade_risk(f) == Risk::Medium);
  f.fault_restarts = 5;
  CHECK(grade_risk(f) == Risk::Medium);
  RiskFacts exhausted = f;
  exhausted.retries_exhausted = true;
  CHECK(grade_risk(exhausted) == Risk::High);
  RiskFacts recurred = f;
  recurred.node_fault_recurred = true;
  CHECK(grade_risk(recurred) == Risk::High);
}

TEST_CASE("O3: a recognised code error gives its entry's level; O4: a straggler is Medium",
          "[policy][risk][rule:O3][rule:O4]") {
  for (Risk r : {Risk::Low, Risk::Medium, Risk::High}) {
    RiskFacts f = protected_job();
    f.code_error = r;
    CHECK(grade_risk(f) == r);
  }
  RiskFacts f = protected_job();
  f.straggler = true;
  CHECK(grade_risk(f) == Risk::Medium);
  // The highest of the monitors wins.
  f.code_error = Risk::Low;
  CHECK(grade_risk(f) == Risk::Medium);
  f.code_error = Risk::High;
  CHECK(grade_risk(f) == Risk::High);
  // A level that is not an anomaly's is no code error.
  RiskFacts odd = protected_job();
  odd.code_error = Risk::Monitoring;
  CHECK(grade_risk(odd) == Risk::NoRisk);
}

TEST_CASE("O5: a level once shown is not lowered; O6: Monitoring only while nothing is found",
          "[policy][risk][rule:O5][rule:O6]") {
  RiskFacts f = protected_job();
  f.recorded = Risk::High;
  CHECK(grade_risk(f) == Risk::High);
  f.recorded = Risk::Medium;
  f.code_error = Risk::Low;
  CHECK(grade_risk(f) == Risk::Medium);
  // Monitoring and NoRisk as shown are no anomaly: the label follows the facts.
  RiskFacts checking = protected_job();
  checking.check_running = true;
  CHECK(grade_risk(checking) == Risk::Monitoring);
  checking.recorded = Risk::Monitoring;
  checking.check_running = false;
  CHECK(grade_risk(checking) == Risk::NoRisk);
  // A found anomaly outranks a running check.
  checking.check_running = true;
  checking.fault_restarts = 1;
  CHECK(grade_risk(checking) == Risk::Medium);
}

TEST_CASE("risk levels are written as the label says them", "[policy][risk][rule:O1]") {
  for (Risk r :
       {Risk::Unprotected, Risk::NoRisk, Risk::Monitoring, Risk::Low, Risk::Medium, Risk::High})
    CHECK(parse_risk(to_string(r)) == r);
  CHECK(to_string(Risk::NoRisk) == "NoRisk");
  CHECK_FALSE(parse_risk("high"));
  CHECK_FALSE(parse_risk(""));
}
