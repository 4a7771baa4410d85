// Node operations, node by node: the Replace, Reset and Delete state machines (N3, N5, N7, N8),
// the steps they show, what is undone when a part ends, the patches, and P9 retention.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_operation_patch.hpp"
#include "reconcilers/policy/node_operation_retention.hpp"
#include "reconcilers/policy/node_operation_steps.hpp"
#include "reconcilers/policy/pool_plan.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;
using respool::policy::test::NodeBuilder;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

constexpr auto R = NodeOperationType::Replace;
constexpr auto X = NodeOperationType::Reset;
constexpr auto D = NodeOperationType::Delete;

NodeAction next(NodeOperationType type, const OperatedNode& n, TimePoint now = kT0 + 1min) {
  return decide_node(type, n, 24h, kT0, now).action;
}

std::vector<std::string> step_names(NodeOperationType type, const OperatedNode& n) {
  std::vector<std::string> out;
  for (const auto& s : observed_steps(type, n))
    out.push_back(s.step);
  return out;
}

}  // namespace

TEST_CASE("Replace: cordon, drain, claim, admission, retire", "[policy][nodeop][rule:N3]") {
  OperatedNode n;
  CHECK(next(R, n) == NodeAction::Mark);
  n.marked = n.unschedulable = n.cordoned_by_us = true;
  n.pods_to_drain = 2;
  CHECK(next(R, n) == NodeAction::Drain);
  CHECK(step_names(R, n) == std::vector<std::string>{"Cordoned"});
  n.pods_to_drain = 0;
  CHECK(next(R, n) == NodeAction::ClaimReplacement);
  CHECK(step_names(R, n) == std::vector<std::string>{"Cordoned", "Drained"});
  n.replacement = OperatedNode::Replacement{"n-41", NodeState::Creating};
  CHECK(next(R, n) == NodeAction::WaitForAdmission);
  n.replacement->state = NodeState::Available;
  CHECK(next(R, n) == NodeAction::Retire);
  n.retired = true;
  n.in_pool = n.marked = false;
  auto done = decide_node(R, n, 24h, kT0, kT0 + 1h);
  CHECK(done.action == NodeAction::End);
  CHECK(done.phase == NodePhase::Succeeded);
  CHECK(step_names(R, n) == std::vector<std::string>{"Cordoned", "Drained", "ReplacementClaimed",
                                                     "ReplacementAdmitted", "Retired"});
  CHECK_FALSE(restore(R, NodePhase::Succeeded, n).needed());
}

TEST_CASE("Replace without an idle node fails at its timeout with NoIdleNode, and is undone",
          "[policy][nodeop][rule:N3]") {
  OperatedNode n;
  n.marked = n.unschedulable = n.cordoned_by_us = true;
  CHECK(decide_node(R, n, 2h, kT0, kT0 + 2h - 1s).action == NodeAction::ClaimReplacement);
  auto failed = decide_node(R, n, 2h, kT0, kT0 + 2h);
  CHECK(failed.action == NodeAction::End);
  CHECK(failed.phase == NodePhase::Failed);
  CHECK(failed.reason == "NoIdleNode");
  CHECK(failed.message.find("2h") != std::string::npos);
  auto r = restore(R, NodePhase::Failed, n);
  CHECK(r.unmark);
  CHECK(r.uncordon);
  // A node an administrator cordoned before stays cordoned.
  n.cordoned_by_us = false;
  CHECK_FALSE(restore(R, NodePhase::Failed, n).uncordon);
  // A replacement that never passed admission: failed too, and detached.
  n.replacement = OperatedNode::Replacement{"n-41", NodeState::Creating};
  auto late = decide_node(R, n, 2h, kT0, kT0 + 3h);
  CHECK(late.reason == "ReplacementNotAdmitted");
  CHECK(restore(R, NodePhase::Failed, n).detach_replacement);
}

TEST_CASE("Reset: mark, drain, Job, re-admission; a failed Job fails the node",
          "[policy][nodeop][rule:N5][rule:N7]") {
  OperatedNode n;
  CHECK(next(X, n) == NodeAction::Mark);
  n.marked = n.unschedulable = n.cordoned_by_us = n.resetting = true;
  n.state = NodeState::Resetting;
  n.pods_to_drain = 1;
  CHECK(next(X, n) == NodeAction::Drain);
  n.pods_to_drain = 0;
  CHECK(next(X, n) == NodeAction::StartReset);
  n.reset_job = OperatedNode::ResetJob{};
  CHECK(next(X, n) == NodeAction::WaitForReset);
  n.reset_job->succeeded = true;
  CHECK(next(X, n) == NodeAction::Readmit);
  n.resetting = false;
  n.state = NodeState::Creating;
  CHECK(next(X, n) == NodeAction::WaitForAdmission);
  n.state = NodeState::Available;
  auto done = decide_node(X, n, 24h, kT0, kT0 + 1h);
  CHECK(done.phase == NodePhase::Succeeded);
  CHECK(step_names(X, n) == std::vector<std::string>{"Cordoned", "Drained", "ResetStarted",
                                                     "ResetCompleted", "Readmitted"});
  auto r = restore(X, NodePhase::Succeeded, n);
  CHECK(r.unmark);
  CHECK(r.uncordon);

  OperatedNode f;
  f.marked = f.unschedulable = f.cordoned_by_us = f.resetting = true;
  f.reset_job = OperatedNode::ResetJob{false, true, "BackoffLimitExceeded: exit code 3"};
  auto failed = decide_node(X, f, 24h, kT0, kT0 + 1h);
  CHECK(failed.phase == NodePhase::Failed);
  CHECK(failed.reason == "ResetFailed");
  CHECK(failed.message.find("exit code 3") != std::string::npos);
  auto rf = restore(X, NodePhase::Failed, f);
  CHECK(rf.unmark);
  CHECK(rf.untaint);
  CHECK_FALSE(rf.uncordon);  // stays cordoned, with the reason
  CHECK(rf.keep_cordon_reason);
}

TEST_CASE("Delete: mark, then the pool releases it", "[policy][nodeop][rule:N8]") {
  OperatedNode n;
  CHECK(next(D, n) == NodeAction::Mark);
  n.marked = true;
  CHECK(next(D, n) == NodeAction::WaitForRelease);
  n.in_pool = false;
  n.marked = false;
  auto done = decide_node(D, n, 24h, kT0, kT0);
  CHECK(done.phase == NodePhase::Succeeded);
  CHECK(step_names(D, n) == std::vector<std::string>{"Draining", "Released"});
}

TEST_CASE("a node that left the pool or vanished ends its part", "[policy][nodeop]") {
  OperatedNode gone;
  gone.exists = false;
  CHECK(decide_node(R, gone, 24h, kT0, kT0).reason == "NodeGone");
  CHECK(decide_node(X, gone, 24h, kT0, kT0).reason == "NodeGone");
  OperatedNode left;
  left.in_pool = false;
  CHECK(decide_node(R, left, 24h, kT0, kT0).reason == "NodeLeftPool");
}

TEST_CASE("operation patches record what respool did, and undo only that", "[policy][nodeop]") {
  NodeView v = NodeBuilder("n-1", "gpu-8x-a100").pool("p").view();
  json mark = mark_patch(v, "op-1", R);
  CHECK(mark["metadata"]["resourceVersion"] == "7");
  CHECK(mark["metadata"]["annotations"][std::string(kNodeOperationAnnotation)] == "op-1");
  CHECK(mark["metadata"]["annotations"][std::string(kCordonedByAnnotation)] == "op-1");
  CHECK(mark["spec"]["unschedulable"] == true);
  json reset_mark = mark_patch(v, "op-2", X);
  bool resetting = false;
  for (const auto& t : reset_mark["spec"]["taints"])
    resetting |= t["key"] == std::string(kResettingTaintKey);
  CHECK(resetting);
  // Already cordoned by someone else: not recorded as ours.
  NodeView cordoned = v;
  cordoned.unschedulable = true;
  json mark2 = mark_patch(cordoned, "op-1", R);
  CHECK_FALSE(mark2["metadata"]["annotations"].contains(std::string(kCordonedByAnnotation)));
  CHECK_FALSE(mark2.contains("spec"));

  json retire = retire_patch(v, "op-1", "p", "n-41", "2026-01-01T00:00:00Z");
  CHECK(retire["metadata"]["labels"][std::string(kRetiredKey)] == "true");
  CHECK(retire["metadata"]["labels"][std::string(kPoolLabel)].is_null());
  bool retired_taint = false, pool_taint = false;
  for (const auto& t : retire["spec"]["taints"]) {
    retired_taint |= t["key"] == std::string(kRetiredKey);
    pool_taint |= t["key"] == std::string(kPoolTaintKey);
  }
  CHECK(retired_taint);
  CHECK_FALSE(pool_taint);
  CHECK(retire["metadata"]["annotations"][std::string(kRetiredKey)].get<std::string>().find(
            "n-41") != std::string::npos);

  json readmit = readmit_patch(
      NodeBuilder("n-1", "gpu-8x-a100").pool("p").taint(std::string(kResettingTaintKey)).view(),
      true);
  bool admission = false, still_resetting = false;
  for (const auto& t : readmit["spec"]["taints"]) {
    admission |= t["key"] == "isolation.respool.io/A200008";
    still_resetting |= t["key"] == std::string(kResettingTaintKey);
  }
  CHECK(admission);
  CHECK_FALSE(still_resetting);
  CHECK(readmit["metadata"]["labels"][std::string(kDriverUpgradeStateLabel)] == "upgrade-required");

  NodeView marked = v;
  marked.annotations[std::string(kNodeOperationAnnotation)] = "op-1";
  marked.annotations[std::string(kCordonedByAnnotation)] = "op-1";
  marked.unschedulable = true;
  json restore = restore_patch(marked, Restore{true, true, false, false, false}, "");
  CHECK(restore["spec"]["unschedulable"] == false);
  CHECK(restore["metadata"]["annotations"][std::string(kNodeOperationAnnotation)].is_null());
  json keep = restore_patch(marked, Restore{true, false, false, true, false}, "reset failed");
  CHECK_FALSE(keep.contains("spec"));
  CHECK(keep["metadata"]["annotations"][std::string(kCordonReasonAnnotation)] == "reset failed");
  CHECK(restore_patch(v, Restore{}, "").is_null());
}

TEST_CASE("P9: Succeeded operations go after 90 days, failed after 3 and beyond 500",
          "[policy][nodeop][rule:P9]") {
  std::vector<EndedOperation> ended = {
      {"ok-old", OperationPhase::Succeeded, kT0 - std::chrono::days(90)},
      {"ok-new", OperationPhase::Succeeded, kT0 - std::chrono::days(89)},
      {"failed-old", OperationPhase::Failed, kT0 - std::chrono::days(3)},
      {"rejected-new", OperationPhase::Rejected, kT0 - std::chrono::days(2)},
  };
  auto gone = expired_operations(ended, kT0);
  std::sort(gone.begin(), gone.end());
  CHECK(gone == std::vector<std::string>{"failed-old", "ok-old"});
  CHECK(*next_expiry(ended) == kT0 - std::chrono::days(90) + std::chrono::days(90));

  std::vector<EndedOperation> many;
  for (int i = 0; i < 505; ++i) {
    many.push_back(
        {"f-" + std::to_string(i), OperationPhase::Failed, kT0 - std::chrono::minutes(i)});
  }
  auto trimmed = expired_operations(many, kT0);
  REQUIRE(trimmed.size() == 5);
  std::sort(trimmed.begin(), trimmed.end());
  CHECK(trimmed == std::vector<std::string>{"f-500", "f-501", "f-502", "f-503", "f-504"});
}

TEST_CASE("the pool's plan and node operations", "[policy][nodeop][plan][rule:N8][rule:P10]") {
  const std::vector<DesiredGroup> three{{"gpu-8x-a100", std::nullopt, 3, 50}};
  auto node = [](const std::string& name, NodeState state = NodeState::Available) {
    return PoolNode{name, "gpu-8x-a100", "az-1", {state, {}}, 0};
  };
  std::vector<FreeNode> free = {{"f-1", "gpu-8x-a100", "az-1", "1"}};

  SECTION("a Delete's node does not count, is released, and a free node takes its place") {
    std::vector<PoolNode> nodes = {node("a"), node("b"), node("c")};
    nodes[0].operation = D;
    auto plan = plan_pool(three, nodes, free);
    REQUIRE(plan.claims.size() == 1);
    CHECK(plan.claims[0].replaces == "a");
    CHECK(plan.releases == std::vector<std::string>{"a"});
  }
  SECTION("with the count lowered at the same time, exactly that node leaves") {
    const std::vector<DesiredGroup> two{{"gpu-8x-a100", std::nullopt, 2, 50}};
    std::vector<PoolNode> nodes = {node("a"), node("b"), node("c")};
    nodes[1].operation = D;
    auto plan = plan_pool(two, nodes, free);
    CHECK(plan.claims.empty());
    CHECK(plan.releases == std::vector<std::string>{"b"});
    // Not yet marked, only named: scale-in takes it first.
    std::vector<PoolNode> unmarked = {node("a"), node("b"), node("c")};
    PlanOptions options;
    options.delete_first = {"c"};
    auto named = plan_pool(two, unmarked, free, options);
    CHECK(named.releases == std::vector<std::string>{"c"});
    // Named by a Delete not answered yet: it is about to leave through the Delete, so scale-in
    // releases nothing (neither it, which would leave the Delete nothing to take, nor another).
    options.delete_unanswered = {"c"};
    auto unanswered = plan_pool(two, unmarked, free, options);
    CHECK(unanswered.releases.empty());
    CHECK(unanswered.claims.empty());
    // Scale-in chose another before the Delete was seen: that release is undone.
    unmarked[0].state.state = NodeState::Deleting;
    unmarked[0].releasing = true;
    unmarked[2].operation = D;
    auto undo = plan_pool(two, unmarked, free);
    CHECK(undo.keeps == std::vector<std::string>{"a"});
    CHECK(undo.releases == std::vector<std::string>{"c"});
    CHECK(undo.claims.empty());
    // The Delete took its substitute before the lowered count was seen: the substitute goes,
    // not an older node, so that exactly the named node leaves the pool.
    std::vector<PoolNode> substituted = {node("a"), node("b"), node("c"), node("f-1")};
    substituted[1].operation = D;
    substituted[3].replacement_for = "b";
    auto back = plan_pool(two, substituted, {});
    CHECK(back.releases == std::vector<std::string>{"b", "f-1"});
    CHECK(back.claims.empty());
  }
  SECTION("a node being replaced holds its place until its replacement is in the pool") {
    std::vector<PoolNode> nodes = {node("a"), node("b"), node("c")};
    nodes[0].operation = R;
    auto before = plan_pool(three, nodes, free);
    CHECK(before.claims.empty());
    CHECK(before.releases.empty());
    nodes.push_back(node("n-41", NodeState::Creating));
    nodes.back().replacement_for = "a";
    auto during = plan_pool(three, nodes, free);
    CHECK(during.claims.empty());
    CHECK(during.releases.empty());  // neither the old node nor its replacement
    CHECK(during.settled());
  }
  SECTION("scale-in does not choose nodes in an operation") {
    const std::vector<DesiredGroup> two{{"gpu-8x-a100", std::nullopt, 2, 50}};
    std::vector<PoolNode> nodes = {node("a"), node("b"), node("c")};
    nodes[0].operation = X;
    nodes[1].operation = X;
    auto plan = plan_pool(two, nodes, free);
    CHECK(plan.releases == std::vector<std::string>{"c"});
  }
}
