// N18: what a preview says, from the facts the controller gathers: the budget's verdict per
// node, the evictions a PodDisruptionBudget would refuse, the summary, and spec.preview's check.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/node_operation_preview.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::kT0;
using namespace std::chrono_literals;

TEST_CASE("N18: evictions take a budget's allowed disruptions in order; none left blocks",
          "[policy][preview][rule:N18]") {
  const std::vector<DisruptionBudgetView> budgets = {{"ns/one-left", 1}, {"ns/none-left", 0}};
  const std::vector<PodToDrain> pods = {{"ns/a", true, {0}},
                                        {"ns/b", true, {0}},
                                        {"ns/c", false, {1}},
                                        {"ns/d", false, {}},
                                        {"ns/e", true, {0, 1}}};
  const auto blocks = drain_blocks(pods, budgets);
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].pod == "ns/b");  // a took the one disruption allowed
  CHECK(blocks[0].budget == "ns/one-left");
  CHECK(blocks[1].pod == "ns/c");
  CHECK(blocks[1].budget == "ns/none-left");
  CHECK(blocks[2].pod == "ns/e");  // two budgets: the eviction API refuses it
  CHECK(blocks[2].budget.empty());
  CHECK(blocks[2].message.find("more than one") != std::string::npos);
}

TEST_CASE("N18: a preview's verdict per node is the admission's, with the N1 slot's time",
          "[policy][preview][rule:N18][rule:N1]") {
  Admission a;
  a.started.push_back({"look", NodeOperationType::Replace, "n-1", kT0});
  a.waiting["look"] = {"ReplaceLimitPerDay", "N1: 4 of 4 replacements in 24 hours"};
  Budget b;
  b.next_replacement_time = kT0 + 3h;
  const auto runs = preview_verdict(a, b, "look", "n-1");
  CHECK(runs.outcome == "RunsNow");
  const auto waits = preview_verdict(a, b, "look", "n-2");
  CHECK(waits.outcome == "Waits");
  CHECK(waits.reason == "ReplaceLimitPerDay");
  CHECK(waits.not_before == kT0 + 3h);
  a.waiting["look"] = {"ReplaceLimitConcurrent", "N2"};
  CHECK_FALSE(preview_verdict(a, b, "look", "n-2").not_before);
  a.failed["look"]["n-2"] = {"NodeNotAvailable", "N5"};
  CHECK(preview_verdict(a, b, "look", "n-2").outcome == "Rejected");
  a.rejected["look"] = {"NotInPool", "n-9 is not in pool p"};
  const auto refused = preview_verdict(a, b, "look", "n-1");
  CHECK(refused.outcome == "Rejected");
  CHECK(refused.reason == "NotInPool");
}

TEST_CASE("N18: status.preview lists steps, stopped jobs, blocking budgets and the replacement",
          "[policy][preview][rule:N18]") {
  NodePreview n;
  n.name = "n-1";
  n.verdict = {"Waits", "ReplaceLimitPerDay", "N1", kT0 + 1h};
  n.pods = {{"ns/worker-0", true, {0}}, {"ns/sidecar", false, {}}};
  n.blocks = {{"ns/worker-0", "ns/keep", "allows no more disruptions"}};
  n.replacement = PreviewReplacement{"spare-1", "gpu-8x", "az-1"};
  const std::vector<NodePreview> nodes = {n};
  const json out = preview_json(NodeOperationType::Replace, nodes);
  const json& node = out["nodes"][0];
  CHECK(node["verdict"]["notBefore"] == "2026-01-01T01:00:00Z");
  CHECK(node["stoppedJobs"] == json::array({"ns/worker-0"}));
  CHECK(node["evictedPods"] == json::array({"ns/worker-0", "ns/sidecar"}));
  CHECK(node["blockingBudgets"][0]["name"] == "ns/keep");
  CHECK(node["replacement"]["node"] == "spare-1");
  CHECK(node["steps"][2]["message"] == "claim free node spare-1 (gpu-8x, zone az-1)");
  const Verdict summary = preview_summary(NodeOperationType::Replace, nodes);
  CHECK(summary.reason == "ReplaceLimitPerDay");
  CHECK(summary.message.find("not before 2026-01-01T01:00:00Z") != std::string::npos);
  CHECK(summary.message.find("would stop 1 job pod, 1 eviction blocked") != std::string::npos);
  // Without an idle node, the claim step says it would wait (N3).
  n.replacement.reset();
  n.replacement_wanted = "flavor gpu-8x";
  const json none = preview_json(NodeOperationType::Replace, std::vector<NodePreview>{n});
  CHECK(none["nodes"][0]["steps"][2]["message"].get<std::string>().find("N3") != std::string::npos);
}

TEST_CASE("N18: spec.preview is a boolean", "[policy][preview][rule:N18]") {
  json op = {{"spec", {{"pool", "p"}, {"type", "Replace"}, {"nodes", {"n-1"}}, {"preview", true}}}};
  auto checked = check_node_operation(op);
  REQUIRE(checked);
  CHECK(checked->preview);
  op["spec"]["preview"] = "yes";
  auto refused = check_node_operation(op);
  REQUIRE_FALSE(refused);
  CHECK(refused.error()[0].field == "spec.preview");
  CHECK(refused.error()[0].rule == "N18");
}
