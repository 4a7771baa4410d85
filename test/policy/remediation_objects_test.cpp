// Automatic remediation between the cluster's objects and its decisions (N10–N17): a node's
// remediable faults, the pool's operations folded into its nodes, the NodeOperation an action
// creates, status.remediation and RemediationPaused, and N17's admission of an automatic Reset.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/node_operation_admission.hpp"
#include "reconcilers/policy/remediation_objects.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::kT0;
using namespace std::chrono_literals;

namespace {

json node_json(const std::string& name, std::vector<std::string> isolation_codes,
               bool ready = true) {
  json taints = json::array();
  for (const auto& code : isolation_codes)
    taints.push_back({{"key", "isolation.respool.io/" + code}, {"effect", "NoSchedule"}});
  return {{"metadata",
           {{"name", name},
            {"labels",
             {{"respool.io/pool", "p"}, {"node.kubernetes.io/instance-type", "gpu-8x-a100"}}}}},
          {"spec", {{"taints", taints}}},
          {"status",
           {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}},
            {"allocatable", {{"nvidia.com/gpu", "8"}}}}}};
}

RemediationNode seen(const json& node) {
  const NodeView view = node_view_from_json(node);
  return remediation_node(view, pool_node(view, test::test_catalog(), 0));
}

json operation(const std::string& name, const std::string& node, const std::string& phase,
               const json& labels = json::object(), std::string reason = "") {
  json status = {{"phase", phase}};
  if (!reason.empty()) status["reason"] = reason;
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"pool", "p"}, {"type", "Reset"}, {"nodes", {node}}}},
          {"status", status}};
}

json auto_labels(int step, int attempt) {
  return {{"respool.io/remediation", "auto"},
          {"respool.io/remediation-step", std::to_string(step)},
          {"respool.io/remediation-attempt", std::to_string(attempt)}};
}

}  // namespace

TEST_CASE("N10: a node's remediable faults are its isolation codes and what its state shows",
          "[policy][remediation][rule:N10][rule:F4]") {
  auto ecc = seen(node_json("n-1", {"A050101"}));
  CHECK(ecc.abnormal);
  CHECK(ecc.fault_codes == std::vector<std::string>{"A050101"});
  // Operational codes are no faults (F4): a node under admission is not remediated.
  auto admitting = seen(node_json("n-2", {"A200008"}));
  CHECK(admitting.fault_codes.empty());
  CHECK_FALSE(admitting.abnormal);
  // A node that is not Ready: A050202 detected from its state, after its taints' codes.
  auto down = seen(node_json("n-3", {"A050147"}, false));
  CHECK(down.abnormal);
  CHECK(down.fault_codes == std::vector<std::string>{"A050147", "A050202"});
  // A node being reset keeps its isolation taint, so its fault stays in view.
  json resetting = node_json("n-4", {"A050101"});
  resetting["spec"]["taints"].push_back(
      {{"key", "respool.io/resetting"}, {"effect", "NoSchedule"}});
  auto r = seen(resetting);
  CHECK_FALSE(r.abnormal);
  CHECK(r.fault_codes == std::vector<std::string>{"A050101"});
}

TEST_CASE("N12: a person's operation holds a node; the newest automatic one is the node's",
          "[policy][remediation][rule:N12]") {
  std::vector<RemediationNode> nodes(3);
  nodes[0].name = "n-0";
  nodes[1].name = "n-1";
  nodes[2].name = "n-2";
  std::vector<std::pair<std::string, OperationOnNodes>> ops = {
      {"a1", operation_on_nodes(operation("a1", "n-0", "Failed", auto_labels(1, 1)))},
      {"a2", operation_on_nodes(operation("a2", "n-0", "Running", auto_labels(1, 2)))},
      {"old", operation_on_nodes(operation("old", "n-1", "Succeeded"))},
      {"mine", operation_on_nodes(operation("mine", "n-2", "Pending"))}};
  attach_operations(nodes, ops);
  REQUIRE(nodes[0].automatic);
  CHECK(nodes[0].automatic->name == "a2");
  CHECK(nodes[0].automatic->step == 0);  // the label counts from 1
  CHECK(nodes[0].automatic->attempt == 2);
  CHECK_FALSE(nodes[0].person_operation);
  CHECK_FALSE(nodes[1].person_operation);  // ended: holds nothing
  CHECK(nodes[2].person_operation == "mine");
  // An automatic operation deleted before it ended counts as failed: someone stopped it.
  json deleted = operation("a3", "n-0", "Running", auto_labels(2, 1));
  deleted["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  auto d = operation_on_nodes(deleted);
  REQUIRE(d.automatic);
  CHECK(d.automatic->phase == "Failed");
  CHECK_FALSE(d.active);
}

TEST_CASE("N12: the NodeOperation of an action is named, labelled and owned for a person to read",
          "[policy][remediation][rule:N12]") {
  RemediationAction reset{
      "gpu-7", "A050101", 0, 1, {NodeOperationType::Reset, "ubuntu-22.04", 45min}};
  json op = remediation_operation(reset, "p", "uid-1");
  CHECK(op["metadata"]["name"] == "auto-gpu-7-a050101-1-1");
  CHECK(op["metadata"]["labels"]["respool.io/remediation"] == "auto");
  CHECK(op["metadata"]["labels"]["respool.io/remediation-step"] == "1");
  CHECK(op["metadata"]["labels"]["respool.io/remediation-attempt"] == "1");
  CHECK(op["metadata"]["ownerReferences"][0]["uid"] == "uid-1");
  CHECK(op["spec"] == json{{"pool", "p"},
                           {"type", "Reset"},
                           {"nodes", {"gpu-7"}},
                           {"reset", {{"os", "ubuntu-22.04"}}}});
  auto checked = check_node_operation(op);
  REQUIRE(checked);
  CHECK(checked->automatic);
  RemediationAction replace{"gpu-7", "A050101", 1, 3, {NodeOperationType::Replace, "", 45min}};
  json r = remediation_operation(replace, "p", "uid-1");
  CHECK(r["metadata"]["name"] == "auto-gpu-7-a050101-2-3");
  CHECK_FALSE(r["spec"].contains("reset"));
  // What the operation's labels say is what the round reads back.
  auto back = operation_on_nodes(r);
  REQUIRE(back.automatic);
  CHECK(back.automatic->step == 1);
  CHECK(back.automatic->attempt == 3);
}

TEST_CASE("N14: status.remediation and RemediationPaused say the count, the share and the limit",
          "[policy][remediation][rule:N14]") {
  auto spec = check_remediation(
      json{{"remediation",
            {{"rules", {{{"codes", {"A050101"}}, {"steps", {{{"action", "Replace"}}}}}}},
             {"maxUnhealthy", "20%"}}}});
  REQUIRE(spec);
  RemediationInput in;
  in.spec = &**spec;
  in.now = kT0;
  for (int i = 0; i < 10; ++i) {
    RemediationNode n;
    n.name = "n-" + std::to_string(i);
    if (i < 3) {
      n.fault_codes = {"A050101"};
      n.abnormal = true;
    }
    in.nodes.push_back(n);
  }
  // Their faults have lasted past `after` (10m): the breaker, not the wait, holds them.
  for (int i = 0; i < 3; ++i)
    in.memory.push_back({"n-" + std::to_string(i), "A050101", kT0 - 20min});
  auto plan = plan_remediation(in);
  json status = remediation_status(plan, in);
  CHECK(status["paused"] == true);
  CHECK(status["unhealthy"] == 3);
  CHECK(status["maxUnhealthy"] == 2);
  REQUIRE(status["nodes"].size() == 3);
  CHECK(status["nodes"][0]["state"] == "Paused");
  CHECK(status["nodes"][0]["since"] == "2025-12-31T23:40:00Z");
  CHECK(status["summary"] == "Paused");
  // Below the breaker, the column counts the nodes by state.
  auto below = in;
  below.nodes[2].fault_codes.clear();
  below.nodes[2].abnormal = false;
  below.memory.pop_back();
  CHECK(remediation_status(plan_remediation(below), below)["summary"] == "2 Running");
  below.memory.clear();
  for (auto& n : below.nodes) {
    n.fault_codes.clear();
    n.abnormal = false;
  }
  CHECK(remediation_status(plan_remediation(below), below)["summary"] == "Idle");
  // The memory the next round reads back is the plan's.
  CHECK(node_remediations_from_json(status["nodes"]).size() == 3);
  Condition paused = remediation_condition(status);
  CHECK(paused.status == "True");
  CHECK(paused.reason == "TooManyUnhealthy");
  CHECK(paused.message.find("3 of 10 nodes abnormal (30%)") != std::string::npos);
  in.nodes[2] = RemediationNode{"n-2"};
  Condition active = remediation_condition(remediation_status(plan_remediation(in), in));
  CHECK(active.status == "False");
  CHECK(active.reason == "Active");
  CHECK(active.message == "2 nodes abnormal; remediation pauses above 2");
  auto invalid =
      remediation_status_invalid({{"spec.remediation.rules", "N10", "lists at least one rule"}});
  CHECK(remediation_condition(invalid).reason == "InvalidRemediation");
}

TEST_CASE("N17: an automatic Reset may repair an Abnormal node; a person's may not",
          "[policy][remediation][nodeop][rule:N17][rule:N5]") {
  std::vector<PoolNode> nodes;
  for (int i = 0; i < 4; ++i)
    nodes.push_back(
        {"n-" + std::to_string(i), "gpu-8x-a100", "az-1", {NodeState::Available, {}}, 0});
  nodes[1].state = {NodeState::Abnormal, {"A050101"}};
  nodes[2].state = {NodeState::Abnormal, {"A050101", "A050202"}};
  auto reset = [](std::string name, std::string node, bool automatic, TimePoint created) {
    NodeOperationSpec spec;
    spec.pool = "p";
    spec.type = NodeOperationType::Reset;
    spec.nodes = {std::move(node)};
    spec.reset = ResetOptions{"ubuntu-22.04", {1, false}};
    spec.automatic = automatic;
    OpenOperation o;
    o.name = std::move(name);
    o.created = created;
    o.spec = spec;
    return o;
  };
  AdmissionInput in;
  in.pool = "p";
  in.pool_size = 4;
  in.nodes = nodes;
  in.now = kT0;
  auto a = admit(in, {},
                 {reset("person", "n-1", false, kT0), reset("auto", "n-1", true, kT0 + 1s),
                  reset("down", "n-2", true, kT0 + 2s)});
  CHECK(a.rejected["person"].reason == "NodeNotAvailable");
  CHECK_FALSE(a.rejected.contains("auto"));
  REQUIRE(a.started.size() == 1);
  CHECK(a.started[0].operation == "auto");
  // Not Ready: nothing would run its reset.
  CHECK(a.rejected["down"].reason == "NodeNotAvailable");
}

TEST_CASE("N17: a Reset that leaves the node abnormal waits out its step's timeout",
          "[policy][remediation][rule:N17][rule:N13]") {
  auto spec = check_remediation(
      json{{"remediation",
            {{"rules",
              {{{"codes", {"A050101"}},
                {"after", "1m"},
                {"steps",
                 {{{"action", "Reset"}, {"os", "ubuntu-22.04"}, {"timeout", "20m"}},
                  {{"action", "Replace"}}}}}}}}}});
  REQUIRE(spec);
  RemediationInput in;
  in.spec = &**spec;
  RemediationNode n;
  n.name = "n-0";
  n.fault_codes = {"A050101"};
  n.abnormal = true;
  in.nodes = {n,
              RemediationNode{"n-1"},
              RemediationNode{"n-2"},
              RemediationNode{"n-3"},
              RemediationNode{"n-4"},
              RemediationNode{"n-5"}};
  NodeRemediation memory{"n-0", "A050101", kT0, 0, 1, kT0 + 1min};
  in.memory = {memory};
  in.nodes[0].automatic =
      AutomaticOperation{"auto-n-0-a050101-1-1", 0, 1, "Failed", "AbnormalAfterReset"};
  in.now = kT0 + 10min;
  auto waiting = plan_remediation(in);
  CHECK(waiting.create.empty());
  CHECK(waiting.nodes[0].state == "Escalating");
  in.now = kT0 + 21min;
  auto escalated = plan_remediation(in);
  REQUIRE(escalated.create.size() == 1);
  CHECK(escalated.create[0].what.action == NodeOperationType::Replace);
  // A reset whose Job failed escalates at once.
  in.nodes[0].automatic->reason = "ResetFailed";
  in.now = kT0 + 10min;
  auto failed = plan_remediation(in);
  REQUIRE(failed.create.size() == 1);
  CHECK(failed.create[0].what.action == NodeOperationType::Replace);
}
