// Automatic remediation decided (issue 27, N10–N16): which rule a fault follows, its `after`,
// escalation at a step's timeout, the back-off of a Replace without an idle node, the circuit
// breaker at maxUnhealthy, and the checks of spec.remediation.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/remediation.hpp"
#include "reconcilers/policy/remediation_objects.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::kT0;
using namespace std::chrono_literals;

namespace {

RemediationSpec spec_of(const json& remediation) {
  auto checked = check_remediation(json{{"remediation", remediation}});
  REQUIRE(checked);
  REQUIRE(*checked);
  return **checked;
}

const json kEccRule = {{"rules",
                        {{{"codes", {"A050101"}},
                          {"after", "10m"},
                          {"steps",
                           {{{"action", "Reset"}, {"os", "ubuntu-22.04"}, {"timeout", "45m"}},
                            {{"action", "Replace"}}}}}}},
                       {"maxUnhealthy", "20%"}};

RemediationNode faulty(std::string name, std::vector<std::string> codes = {"A050101"}) {
  RemediationNode n;
  n.name = std::move(name);
  n.fault_codes = std::move(codes);
  n.abnormal = true;
  return n;
}

RemediationNode healthy(std::string name) {
  RemediationNode n;
  n.name = std::move(name);
  return n;
}

// A pool of `total` nodes whose first `faulty_count` carry A050101.
RemediationInput pool(const RemediationSpec& spec, int total, int faulty_count, TimePoint now) {
  RemediationInput in;
  in.spec = &spec;
  in.now = now;
  for (int i = 0; i < total; ++i) {
    const std::string name = "n-" + std::to_string(10 + i);
    in.nodes.push_back(i < faulty_count ? faulty(name) : healthy(name));
  }
  return in;
}

const RemediationView* view_of(const RemediationPlan& plan, const std::string& node) {
  for (const auto& v : plan.nodes)
    if (v.node == node) return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("N11: a fault is remediated once it has lasted `after`, not a second before",
          "[policy][remediation][rule:N11]") {
  const auto spec = spec_of(kEccRule);
  auto in = pool(spec, 20, 1, kT0);
  auto first = plan_remediation(in);
  REQUIRE(first.memory.size() == 1);
  CHECK(first.memory[0].since == kT0);
  CHECK(first.create.empty());
  CHECK(view_of(first, "n-10")->state == "Waiting");
  CHECK(first.next_check == kT0 + 10min);
  in.memory = first.memory;
  in.now = kT0 + 10min - 1s;
  CHECK(plan_remediation(in).create.empty());
  in.now = kT0 + 10min;
  auto due = plan_remediation(in);
  REQUIRE(due.create.size() == 1);
  CHECK(due.create[0].what.action == NodeOperationType::Reset);
  CHECK(due.create[0].what.os == "ubuntu-22.04");
  CHECK(due.create[0].step == 0);
  CHECK(due.create[0].attempt == 1);
  CHECK(remediation_operation_name("n-10", "A050101", due.create[0].step, due.create[0].attempt) ==
        "auto-n-10-a050101-1-1");
}

TEST_CASE("N11: a fault that clears and returns starts its clock again",
          "[policy][remediation][rule:N11]") {
  const auto spec = spec_of(kEccRule);
  auto in = pool(spec, 20, 1, kT0);
  in.memory = plan_remediation(in).memory;
  in.now = kT0 + 9min;
  in.nodes[0] = healthy("n-10");  // cleared: nothing is kept
  auto cleared = plan_remediation(in);
  CHECK(cleared.memory.empty());
  in.memory = cleared.memory;
  in.nodes[0] = faulty("n-10");
  in.now = kT0 + 11min;
  auto back = plan_remediation(in);
  REQUIRE(back.memory.size() == 1);
  CHECK(back.memory[0].since == kT0 + 11min);
  CHECK(back.create.empty());
}

TEST_CASE("N13: a reset that leaves the fault for its step's timeout escalates to the next step",
          "[policy][remediation][rule:N13]") {
  const auto spec = spec_of(kEccRule);
  auto in = pool(spec, 20, 1, kT0 + 10min);
  in.memory = {NodeRemediation{"n-10", "A050101", kT0}};
  auto started = plan_remediation(in);
  REQUIRE(started.create.size() == 1);
  in.memory = started.memory;
  // The reset runs, then succeeds, and the fault is still there.
  in.nodes[0].automatic = AutomaticOperation{"auto-n-10-a050101-1-1", 0, 1, "Running", ""};
  in.now = kT0 + 30min;
  auto running = plan_remediation(in);
  CHECK(running.create.empty());
  CHECK(view_of(running, "n-10")->state == "Running");
  in.nodes[0].automatic->phase = "Succeeded";
  in.now = kT0 + 10min + 45min - 1s;
  auto waiting = plan_remediation(in);
  CHECK(waiting.create.empty());
  CHECK(view_of(waiting, "n-10")->state == "Escalating");
  CHECK(waiting.next_check == kT0 + 55min);
  in.now = kT0 + 55min;
  auto escalated = plan_remediation(in);
  REQUIRE(escalated.create.size() == 1);
  CHECK(escalated.create[0].what.action == NodeOperationType::Replace);
  CHECK(escalated.create[0].step == 1);
  // The replacement fails too, for good: every step done, the node is left to a person.
  in.memory = escalated.memory;
  in.nodes[0].automatic = AutomaticOperation{"auto-n-10-a050101-2-1", 1, 1, "Succeeded", ""};
  in.now = kT0 + 2h;
  auto exhausted = plan_remediation(in);
  CHECK(exhausted.create.empty());
  CHECK(view_of(exhausted, "n-10")->state == "Exhausted");
  CHECK(exhausted.memory[0].exhausted);
}

TEST_CASE("N15: a Replace without an idle node is tried again after a growing back-off",
          "[policy][remediation][rule:N15]") {
  CHECK(remediation_backoff(1) == 1min);
  CHECK(remediation_backoff(2) == 2min);
  CHECK(remediation_backoff(4) == 8min);
  CHECK(remediation_backoff(7) == 60min);
  CHECK(remediation_backoff(30) == 60min);
  const auto spec =
      spec_of({{"rules",
                {{{"families", {"GPU"}}, {"after", "1m"}, {"steps", {{{"action", "Replace"}}}}}}}});
  auto in = pool(spec, 20, 1, kT0);
  in.memory = {NodeRemediation{"n-10", "A050101", kT0 - 1h, 0, 1, kT0 - 10min}};
  in.nodes[0].automatic = AutomaticOperation{"auto-n-10-a050101-1-1", 0, 1, "Failed", "NoIdleNode"};
  auto retrying = plan_remediation(in);
  CHECK(retrying.create.empty());
  CHECK(view_of(retrying, "n-10")->state == "Retrying");
  CHECK(retrying.memory[0].retry_at == kT0 + 1min);
  in.memory = retrying.memory;
  in.now = kT0 + 1min;
  auto again = plan_remediation(in);
  REQUIRE(again.create.size() == 1);
  CHECK(again.create[0].step == 0);
  CHECK(again.create[0].attempt == 2);
  in.memory = again.memory;
  in.nodes[0].automatic = AutomaticOperation{"auto-n-10-a050101-1-2", 0, 2, "Failed", "NoIdleNode"};
  CHECK(plan_remediation(in).memory[0].retry_at == kT0 + 1min + 2min);
}

TEST_CASE("N14: the circuit breaker opens one node over maxUnhealthy, not at it",
          "[policy][remediation][rule:N14]") {
  const auto spec = spec_of(kEccRule);
  auto at_limit = pool(spec, 20, 4, kT0 + 1h);  // 4 of 20 = 20%
  for (const auto& n : at_limit.nodes)
    if (n.abnormal) at_limit.memory.push_back({n.name, "A050101", kT0});
  auto plan = plan_remediation(at_limit);
  CHECK_FALSE(plan.paused);
  CHECK(plan.create.size() == 4);  // created; the NodeOperation admission paces them (N1, N2)
  auto over = pool(spec, 20, 5, kT0 + 1h);  // 25%
  for (const auto& n : over.nodes)
    if (n.abnormal) over.memory.push_back({n.name, "A050101", kT0});
  over.nodes[0].automatic = AutomaticOperation{"auto-n-10-a050101-1-1", 0, 0, "Running", ""};
  auto paused = plan_remediation(over);
  CHECK(paused.paused);
  CHECK(paused.paused_message == "5 of 20 nodes abnormal (25%), more than maxUnhealthy 20%");
  CHECK(paused.create.empty());  // nothing new; what runs goes on
  CHECK(view_of(paused, "n-10")->state == "Running");
  CHECK(view_of(paused, "n-11")->state == "Paused");
}

TEST_CASE("N12: a node in a person's operation or a driver upgrade waits; one rule per node",
          "[policy][remediation][rule:N12]") {
  const auto spec =
      spec_of({{"rules",
                {{{"codes", {"A050147"}}, {"after", "1m"}, {"steps", {{{"action", "Replace"}}}}},
                 {{"families", {"GPU", "InfiniBand"}},
                  {"after", "1m"},
                  {"steps", {{{"action", "Reset"}, {"os", "ubuntu-22.04"}}}}}}},
               {"maxUnhealthy", "100%"}});  // every node here is faulty: no breaker
  RemediationInput in;
  in.spec = &spec;
  in.now = kT0 + 1h;
  in.nodes = {faulty("a", {"A050101", "A050147"}), faulty("b", {"A050102"}),
              faulty("c", {"A050146"})};  // Runtime: no rule
  in.nodes[1].person_operation = "replace-b";
  for (const auto& n : {"a", "b"})
    in.memory.push_back({n, "", kT0});
  in.memory[0].code = "A050147";
  in.memory[1].code = "A050102";
  auto plan = plan_remediation(in);
  REQUIRE(plan.create.size() == 1);
  CHECK(plan.create[0].node == "a");
  CHECK(plan.create[0].code == "A050147");  // the first rule wins, by its code
  CHECK(plan.create[0].what.action == NodeOperationType::Replace);
  CHECK(view_of(plan, "b")->state == "Held");
  CHECK(view_of(plan, "c") == nullptr);
  in.driver_upgrading = true;
  in.nodes[1].person_operation.reset();
  auto upgrading = plan_remediation(in);
  CHECK(upgrading.create.empty());
  CHECK(view_of(upgrading, "a")->state == "Held");
  CHECK(family_of("A050149") == FaultFamily::NPU);
  CHECK(family_of("A050206") == FaultFamily::Runtime);
  CHECK_FALSE(family_of("A200008"));  // operational codes are never remediated
}

TEST_CASE("N16: a dry run's preview shows the step and goes no further",
          "[policy][remediation][rule:N16]") {
  const auto spec = spec_of({{"rules", kEccRule["rules"]}, {"dryRun", true}});
  CHECK(spec.dry_run);
  auto in = pool(spec, 20, 1, kT0 + 1h);
  in.memory = {NodeRemediation{"n-10", "A050101", kT0, 0, 1, kT0 + 30min}};
  in.nodes[0].automatic = AutomaticOperation{"auto-n-10-a050101-1-1", 0, 1, "Previewed", ""};
  auto plan = plan_remediation(in);
  CHECK(plan.create.empty());
  CHECK(view_of(plan, "n-10")->state == "Previewed");
  // The first operation of a dry run is written as a preview.
  auto fresh = pool(spec, 20, 1, kT0 + 10min);
  fresh.memory = {NodeRemediation{"n-10", "A050101", kT0}};
  auto first = plan_remediation(fresh);
  REQUIRE(first.create.size() == 1);
  CHECK(first.create[0].preview);
  CHECK(remediation_operation(first.create[0], "p", "uid")["spec"].value("preview", false));
  // dryRun off: the previewed step runs for real, as the next attempt.
  const auto live = spec_of(kEccRule);
  in.spec = &live;
  auto real = plan_remediation(in);
  REQUIRE(real.create.size() == 1);
  CHECK_FALSE(real.create[0].preview);
  CHECK(real.create[0].step == 0);
  CHECK(real.create[0].attempt == 2);
  CHECK_FALSE(remediation_operation(real.create[0], "p", "uid")["spec"].contains("preview"));
}

TEST_CASE("N10: spec.remediation is checked field by field", "[policy][remediation][rule:N10]") {
  auto none = check_remediation(json::object());  // opt-in: no remediation
  REQUIRE(none);
  CHECK_FALSE(*none);
  auto bad = check_remediation(
      {{"remediation",
        {{"rules",
          {{{"codes", {"A999999", "A200008"}}, {"after", "10s"}, {"steps", json::array()}},
           {{"families", {"Disk"}}, {"steps", {{{"action", "Delete"}}, {{"action", "Reset"}}}}}}},
         {"maxUnhealthy", "120%"},
         {"dryRun", "yes"}}}});
  REQUIRE_FALSE(bad);
  std::vector<std::string> said;
  for (const auto& v : bad.error())
    said.push_back(v.to_string());
  CHECK(said.size() == 9);
  auto has = [&](const std::string& text) {
    return std::any_of(said.begin(), said.end(),
                       [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  CHECK(has("spec.remediation.rules[0].codes"));
  CHECK(has("\"A999999\" is not a fault isolation code"));
  CHECK(has("\"A200008\" is not a fault isolation code"));
  CHECK(has("spec.remediation.rules[0].after"));
  CHECK(has("spec.remediation.rules[0].steps"));
  CHECK(has("spec.remediation.rules[1].families"));
  CHECK(has("spec.remediation.rules[1].steps[0].action"));
  CHECK(has("spec.remediation.rules[1].steps[1].os"));
  CHECK(has("spec.remediation.maxUnhealthy"));
  CHECK(has("spec.remediation.dryRun"));
}

TEST_CASE("N10: the remediation record round-trips through status JSON, leniently",
          "[policy][remediation][rule:N10]") {
  std::vector<NodeRemediation> nodes = {
      {"n-1", "A050101", kT0, 1, 2, kT0 + 1h, kT0 + 2h, false},
      {"n-2", "A050147", kT0, 0, 0, std::nullopt, std::nullopt, true}};
  auto round_trip = node_remediations_from_json(to_json(nodes));
  REQUIRE(round_trip.size() == 2);
  CHECK(round_trip[0].step == 1);
  CHECK(round_trip[0].attempts == 2);
  CHECK(round_trip[0].step_start == kT0 + 1h);
  CHECK(round_trip[0].retry_at == kT0 + 2h);
  CHECK(round_trip[1].exhausted);
  CHECK(node_remediations_from_json(json::array({{{"node", "x"}, {"step", "one"}}})).empty());
}
