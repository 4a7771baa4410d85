// Node operations: the N1/N2 budget with its window, the spec checks (N3, N7), and admission in
// one place per pool (N1, N2, N4–N8), all on an injected clock.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/node_operation_admission.hpp"
#include "reconcilers/policy/node_operation_ledger.hpp"
#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/time.hpp"

using namespace respool::policy;
using respool::policy::test::kT0;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::vector<PoolNode> pool_nodes(int n, NodeState state = NodeState::Available) {
  std::vector<PoolNode> out;
  for (int i = 0; i < n; ++i)
    out.push_back({"n-" + std::to_string(i), "gpu-8x-a100", "az-1", {state, {}}, 0});
  return out;
}

OpenOperation op(const std::string& name, NodeOperationType type, std::vector<std::string> nodes,
                 TimePoint created, IntOrPercent reset_max = {1, false}) {
  NodeOperationSpec spec;
  spec.pool = "p";
  spec.type = type;
  spec.nodes = std::move(nodes);
  if (type == NodeOperationType::Reset) spec.reset = ResetOptions{"ubuntu-22.04", reset_max};
  OpenOperation o;
  o.name = name;
  o.created = created;
  o.spec = spec;
  return o;
}

AdmissionInput input(const std::vector<PoolNode>& nodes, TimePoint now) {
  AdmissionInput in;
  in.pool = "p";
  in.pool_size = int(nodes.size());
  in.nodes = nodes;
  in.now = now;
  return in;
}

json object(const json& spec) {
  return {{"apiVersion", "respool.io/v1alpha1"},
          {"kind", "NodeOperation"},
          {"metadata", {{"name", "op"}}},
          {"spec", spec}};
}

std::vector<std::string> started_nodes(const Admission& a) {
  std::vector<std::string> out;
  for (const ActiveNode& s : a.started)
    out.push_back(s.node);
  return out;
}

}  // namespace

TEST_CASE("N1/N2 limits: 20% and 5% of the pool, rounded down, at least one",
          "[policy][nodeop][rule:N1][rule:N2]") {
  ReplacementLimits limits;
  Ledger empty;
  auto b40 = budget(empty, 40, limits, kT0);
  CHECK(b40.replacement_limit == 8);
  CHECK(b40.concurrent_replacement_limit == 2);
  auto b19 = budget(empty, 19, limits, kT0);
  CHECK(b19.replacement_limit == 3);             // floor(3.8)
  CHECK(b19.concurrent_replacement_limit == 1);  // floor(0.95) -> at least 1
  auto b1 = budget(empty, 1, limits, kT0);
  CHECK(b1.replacement_limit == 1);
  CHECK(b1.concurrent_replacement_limit == 1);
  auto b1000 = budget(empty, 1000, limits, kT0);
  CHECK(b1000.replacement_limit == 200);
  CHECK(b1000.concurrent_replacement_limit == 50);
  // Changed percentages.
  ReplacementLimits custom{{50, true}, {10, true}};
  auto c = budget(empty, 40, custom, kT0);
  CHECK(c.replacement_limit == 20);
  CHECK(c.concurrent_replacement_limit == 4);
  ReplacementLimits fixed{{3, false}, {1, false}};
  CHECK(budget(empty, 40, fixed, kT0).replacement_limit == 3);
}

TEST_CASE("N1 window: a replacement exactly 24 h old no longer counts",
          "[policy][nodeop][rule:N1]") {
  Ledger l;
  for (int i = 0; i < 8; ++i)
    l.replacements.push_back({"op", "n-" + std::to_string(i), kT0 + std::chrono::hours(i)});
  ReplacementLimits limits;
  auto at_limit = budget(l, 40, limits, kT0 + 23h);
  CHECK(at_limit.replacements_in_window == 8);
  CHECK(at_limit.day_limit_reached());
  REQUIRE(at_limit.next_replacement_time);
  CHECK(*at_limit.next_replacement_time == kT0 + 24h);  // the oldest leaves first
  auto one_second_before = budget(l, 40, limits, kT0 + 24h - 1s);
  CHECK(one_second_before.replacements_in_window == 8);
  auto exactly = budget(l, 40, limits, kT0 + 24h);
  CHECK(exactly.replacements_in_window == 7);
  CHECK_FALSE(exactly.day_limit_reached());
  CHECK_FALSE(exactly.next_replacement_time);
  // Ten in the window over a limit of 8: three must leave before one may start.
  l.replacements.push_back({"op", "n-8", kT0 + 8h});
  l.replacements.push_back({"op", "n-9", kT0 + 9h});
  auto over = budget(l, 40, limits, kT0 + 10h);
  CHECK(over.replacements_in_window == 10);
  CHECK(*over.next_replacement_time == kT0 + 2h + 24h);
  // Pruning drops only what left the window.
  Ledger pruned = l;
  pruned.prune(kT0 + 24h + 30min);
  CHECK(pruned.replacements.size() == 9);
}

TEST_CASE("ledger and budget round-trip through status.nodeOperations", "[policy][nodeop]") {
  Ledger l;
  l.active = {{"op-a", NodeOperationType::Replace, "n-1", kT0},
              {"op-b", NodeOperationType::Reset, "n-2", kT0 + 1min}};
  l.replacements = {{"op-a", "n-1", kT0}};
  auto b = budget(l, 40, {}, kT0 + 1h);
  json j = to_json(b, l);
  CHECK(j["replacing"] == 1);
  CHECK(j["resetting"] == 1);
  CHECK(j["replacementsInWindow"] == 1);
  CHECK(j["replacementLimit"] == 8);
  CHECK(j["concurrentReplacementLimit"] == 2);
  CHECK_FALSE(j.contains("nextReplacementTime"));
  CHECK(ledger_from_json(j) == l);
  // Garbage entries are skipped, not fatal.
  j["active"].push_back({{"node", "x"}});
  j["replacements"].push_back("nonsense");
  CHECK(ledger_from_json(j) == l);
}

TEST_CASE("NodeOperation spec: types, reset options, timeout at most 24h",
          "[policy][nodeop][rule:N3][rule:N7]") {
  auto ok = check_node_operation(object(
      {{"pool", "gpu-a"}, {"type", "Replace"}, {"nodes", {"n-1", "n-2"}}, {"timeout", "2h30m"}}));
  REQUIRE(ok);
  CHECK(ok->timeout == 2h + 30min);
  CHECK(ok->nodes.size() == 2);

  auto longer = check_node_operation(
      object({{"pool", "gpu-a"}, {"type", "Replace"}, {"nodes", {"n-1"}}, {"timeout", "25h"}}));
  REQUIRE_FALSE(longer);
  CHECK(longer.error()[0].field == "spec.timeout");
  CHECK(longer.error()[0].rule == "N3");

  auto defaulted =
      check_node_operation(object({{"pool", "gpu-a"}, {"type", "Replace"}, {"nodes", {"n-1"}}}));
  REQUIRE(defaulted);
  CHECK(defaulted->timeout == 24h);

  auto reset = check_node_operation(
      object({{"pool", "gpu-a"},
              {"type", "Reset"},
              {"nodes", {"a", "b", "c", "d", "e", "f"}},
              {"reset", {{"os", "ubuntu-22.04"}, {"maxUnavailable", "50%"}}}}));
  REQUIRE(reset);
  CHECK(reset->reset_concurrency() == 3);
  auto reset_int = check_node_operation(object({{"pool", "gpu-a"},
                                                {"type", "Reset"},
                                                {"nodes", {"a", "b", "c"}},
                                                {"reset", {{"os", "x"}, {"maxUnavailable", 2}}}}));
  REQUIRE(reset_int);
  CHECK(reset_int->reset_concurrency() == 2);
  auto small = check_node_operation(object({{"pool", "gpu-a"},
                                            {"type", "Reset"},
                                            {"nodes", {"a", "b", "c"}},
                                            {"reset", {{"os", "x"}, {"maxUnavailable", "10%"}}}}));
  REQUIRE(small);
  CHECK(small->reset_concurrency() == 1);  // floor(0.3) -> at least 1

  auto no_os =
      check_node_operation(object({{"pool", "gpu-a"}, {"type", "Reset"}, {"nodes", {"a"}}}));
  REQUIRE_FALSE(no_os);
  CHECK(no_os.error()[0].rule == "N7");
  auto reset_on_replace = check_node_operation(
      object({{"pool", "gpu-a"}, {"type", "Delete"}, {"nodes", {"a"}}, {"reset", {{"os", "x"}}}}));
  REQUIRE_FALSE(reset_on_replace);
  CHECK(reset_on_replace.error()[0].field == "spec.reset");

  auto twice =
      check_node_operation(object({{"pool", "gpu-a"}, {"type", "Delete"}, {"nodes", {"a", "a"}}}));
  REQUIRE_FALSE(twice);
  CHECK(twice.error()[0].field == "spec.nodes[1]");
  auto bad_type =
      check_node_operation(object({{"pool", "gpu-a"}, {"type", "Reboot"}, {"nodes", {"a"}}}));
  REQUIRE_FALSE(bad_type);

  CHECK(parse_duration("90s").value() == 90s);
  CHECK(parse_duration("1h1m1s").value() == 3661s);
  CHECK_FALSE(parse_duration("1m1h"));
  CHECK_FALSE(parse_duration("h"));
  CHECK_FALSE(parse_duration("10"));
}

TEST_CASE("N2: three replacements asked at once in a 40-node pool run two, queue the third",
          "[policy][nodeop][rule:N2]") {
  auto nodes = pool_nodes(40);
  auto a = admit(input(nodes, kT0), {},
                 {op("r1", NodeOperationType::Replace, {"n-1"}, kT0),
                  op("r2", NodeOperationType::Replace, {"n-2"}, kT0),
                  op("r3", NodeOperationType::Replace, {"n-3"}, kT0)});
  CHECK(started_nodes(a) == std::vector<std::string>{"n-1", "n-2"});
  REQUIRE(a.waiting.contains("r3"));
  CHECK(a.waiting["r3"].reason == "ReplaceLimitConcurrent");
  CHECK(a.ledger.replacements.size() == 2);

  // One finishes: the third starts in the next round.
  Ledger next = a.ledger;
  next.active.erase(next.active.begin());
  OpenOperation r1 = op("r1", NodeOperationType::Replace, {"n-1"}, kT0);
  r1.ended = {"n-1"};
  auto b = admit(input(nodes, kT0 + 1h), next,
                 {r1, op("r2", NodeOperationType::Replace, {"n-2"}, kT0),
                  op("r3", NodeOperationType::Replace, {"n-3"}, kT0)});
  CHECK(started_nodes(b) == std::vector<std::string>{"n-3"});

  // One operation of three nodes: the same arithmetic node by node.
  auto c = admit(input(nodes, kT0), {},
                 {op("r", NodeOperationType::Replace, {"n-1", "n-2", "n-3"}, kT0)});
  CHECK(started_nodes(c) == std::vector<std::string>{"n-1", "n-2"});
  CHECK(c.waiting["r"].reason == "ReplaceLimitConcurrent");
}

TEST_CASE("N1: the ninth replacement in 24 hours waits until the window moves, naming the time",
          "[policy][nodeop][rule:N1]") {
  auto nodes = pool_nodes(40);
  Ledger l;
  for (int i = 0; i < 8; ++i)
    l.replacements.push_back({"old", "x-" + std::to_string(i), kT0 + std::chrono::hours(i)});
  auto a = admit(input(nodes, kT0 + 10h), l, {op("r9", NodeOperationType::Replace, {"n-9"}, kT0)});
  CHECK(a.started.empty());
  CHECK(a.waiting["r9"].reason == "ReplaceLimitPerDay");
  CHECK(a.waiting["r9"].message.find("2026-01-02T00:00:00Z") != std::string::npos);
  auto b = admit(input(nodes, kT0 + 24h), l, {op("r9", NodeOperationType::Replace, {"n-9"}, kT0)});
  CHECK(started_nodes(b) == std::vector<std::string>{"n-9"});
  // The history survives the deletion of old NodeOperation objects: it is the ledger's.
  CHECK(b.ledger.replacements.size() == 8);  // 7 still in the window, and n-9
}

TEST_CASE("limits follow the pool's size while operations wait", "[policy][nodeop][rule:N2]") {
  auto small = pool_nodes(20);  // N2: 1
  auto a = admit(input(small, kT0), {},
                 {op("r1", NodeOperationType::Replace, {"n-1"}, kT0),
                  op("r2", NodeOperationType::Replace, {"n-2"}, kT0)});
  CHECK(a.started.size() == 1);
  auto grown = pool_nodes(40);  // N2: 2
  auto b = admit(input(grown, kT0 + 1min), a.ledger,
                 {op("r1", NodeOperationType::Replace, {"n-1"}, kT0),
                  op("r2", NodeOperationType::Replace, {"n-2"}, kT0)});
  CHECK(started_nodes(b) == std::vector<std::string>{"n-2"});
  // Shrunk while two run: nothing new starts, nothing running stops.
  auto shrunk = pool_nodes(20);
  auto c = admit(input(shrunk, kT0 + 2min), b.ledger,
                 {op("r1", NodeOperationType::Replace, {"n-1"}, kT0),
                  op("r2", NodeOperationType::Replace, {"n-2"}, kT0),
                  op("r3", NodeOperationType::Replace, {"n-3"}, kT0)});
  CHECK(c.started.empty());
  CHECK(c.ledger.active.size() == 2);
}

TEST_CASE("N4/N6: resets and replacements exclude each other both ways",
          "[policy][nodeop][rule:N4][rule:N6]") {
  auto nodes = pool_nodes(40);
  auto a = admit(input(nodes, kT0), {},
                 {op("reset", NodeOperationType::Reset, {"n-1"}, kT0),
                  op("replace", NodeOperationType::Replace, {"n-2"}, kT0 + 1s)});
  CHECK(started_nodes(a) == std::vector<std::string>{"n-1"});
  CHECK(a.waiting["replace"].reason == "PoolResetting");
  auto b = admit(input(nodes, kT0), {},
                 {op("replace", NodeOperationType::Replace, {"n-2"}, kT0),
                  op("reset", NodeOperationType::Reset, {"n-1"}, kT0 + 1s)});
  CHECK(started_nodes(b) == std::vector<std::string>{"n-2"});
  CHECK(b.waiting["reset"].reason == "PoolReplacing");
  // N6: not while the driver is upgraded.
  auto in = input(nodes, kT0);
  in.driver_upgrading = true;
  auto c = admit(in, {}, {op("reset", NodeOperationType::Reset, {"n-1"}, kT0)});
  CHECK(c.started.empty());
  CHECK(c.waiting["reset"].reason == "DriverUpgrading");
}

TEST_CASE("N7: a reset of 6 nodes at 50% runs 3 at a time", "[policy][nodeop][rule:N7]") {
  auto nodes = pool_nodes(10);
  std::vector<std::string> six = {"n-0", "n-1", "n-2", "n-3", "n-4", "n-5"};
  auto reset = op("reset", NodeOperationType::Reset, six, kT0, {50, true});
  auto a = admit(input(nodes, kT0), {}, {reset});
  CHECK(started_nodes(a) == std::vector<std::string>{"n-0", "n-1", "n-2"});
  CHECK(a.waiting["reset"].reason == "ResetConcurrency");
  // Two end: two more start.
  Ledger l = a.ledger;
  std::erase_if(l.active, [](const ActiveNode& x) { return x.node != "n-2"; });
  reset.ended = {"n-0", "n-1"};
  reset.started = true;
  auto b = admit(input(nodes, kT0 + 10min), l, {reset});
  CHECK(started_nodes(b) == std::vector<std::string>{"n-3", "n-4"});
}

TEST_CASE(
    "rejections: not in the pool, not Available for a reset, in another operation, the last node",
    "[policy][nodeop][rule:N5][rule:N8]") {
  auto nodes = pool_nodes(3);
  nodes[2].state.state = NodeState::Abnormal;
  auto a = admit(input(nodes, kT0), {},
                 {op("outside", NodeOperationType::Replace, {"n-1", "elsewhere"}, kT0),
                  op("sick", NodeOperationType::Reset, {"n-2"}, kT0 + 1s),
                  op("first", NodeOperationType::Reset, {"n-0"}, kT0 + 2s),
                  op("second", NodeOperationType::Replace, {"n-0"}, kT0 + 3s),
                  op("all", NodeOperationType::Delete, {"n-1", "n-2"}, kT0 + 4s)});
  CHECK(a.rejected["outside"].reason == "NotInPool");
  CHECK(a.rejected["sick"].reason == "NodeNotAvailable");
  CHECK(a.rejected["sick"].message.find("N5") != std::string::npos);
  CHECK_FALSE(a.rejected.contains("first"));
  CHECK(a.rejected["second"].reason == "NodeInOperation");
  // Deleting n-1 and n-2 while n-0 stays is fine; all three would not be.
  CHECK_FALSE(a.rejected.contains("all"));
  CHECK(started_nodes(a) == std::vector<std::string>{"n-0", "n-1", "n-2"});
  auto one = pool_nodes(1);
  auto b = admit(input(one, kT0), {}, {op("last", NodeOperationType::Delete, {"n-0"}, kT0)});
  CHECK(b.rejected["last"].reason == "LastNode");
  CHECK(b.rejected["last"].message.find("N8") != std::string::npos);
  auto two = pool_nodes(2);
  auto c = admit(input(two, kT0), {},
                 {op("d1", NodeOperationType::Delete, {"n-0"}, kT0),
                  op("d2", NodeOperationType::Delete, {"n-1"}, kT0 + 1s)});
  CHECK(started_nodes(c) == std::vector<std::string>{"n-0"});
  CHECK(c.rejected["d2"].reason == "LastNode");

  // An invalid spec or a missing pool: rejected.
  OpenOperation bad;
  bad.name = "bad";
  bad.invalid = {{"spec.timeout", "N3", "a replacement waits at most 24h"}};
  auto in = input(nodes, kT0);
  auto d = admit(in, {}, {bad});
  CHECK(d.rejected["bad"].reason == "InvalidSpec");
  in.pool_exists = false;
  auto e = admit(in, {}, {op("x", NodeOperationType::Replace, {"n-0"}, kT0)});
  CHECK(e.rejected["x"].reason == "PoolNotFound");
}

TEST_CASE("a started operation fails a node that can no longer take part, not the operation",
          "[policy][nodeop][rule:N5]") {
  auto nodes = pool_nodes(4);
  auto reset = op("reset", NodeOperationType::Reset, {"n-0", "n-1"}, kT0);
  Ledger l;
  l.active = {{"reset", NodeOperationType::Reset, "n-0", kT0}};
  reset.started = true;
  nodes[1].state.state = NodeState::Abnormal;
  auto a = admit(input(nodes, kT0 + 1min), l, {reset});
  CHECK(a.rejected.empty());
  CHECK(a.failed["reset"]["n-1"].reason == "NodeNotAvailable");
  CHECK(a.started.empty());
}

TEST_CASE("admission takes operations oldest first, so concurrent ones never break a limit",
          "[policy][nodeop][rule:N1][rule:N2]") {
  // Five operations in one apply: whatever order they are listed in, two start (N2).
  auto nodes = pool_nodes(40);
  std::vector<OpenOperation> ops;
  for (int i = 4; i >= 0; --i) {
    ops.push_back(op("r" + std::to_string(i), NodeOperationType::Replace,
                     {"n-" + std::to_string(i)}, kT0 + std::chrono::seconds(i)));
  }
  auto a = admit(input(nodes, kT0 + 1min), {}, ops);
  CHECK(started_nodes(a) == std::vector<std::string>{"n-0", "n-1"});
  // Rounds that replay the same decision from the written ledger start nothing more.
  auto b = admit(input(nodes, kT0 + 2min), a.ledger, ops);
  CHECK(b.started.empty());
}

TEST_CASE("a reset of a node whose driver is being upgraded waits for the upgrade, not refused",
          "[policy][nodeop][rule:N5][rule:N6]") {
  auto nodes = pool_nodes(3);
  nodes[1].state.state = NodeState::Upgrading;  // D4: in the upgrade's batch
  // Even before the pool's DriverUpgrading shows it (its status follows the nodes).
  auto a = admit(input(nodes, kT0), {}, {op("reset", NodeOperationType::Reset, {"n-1"}, kT0)});
  CHECK(a.rejected.empty());
  CHECK(a.started.empty());
  CHECK(a.waiting["reset"].reason == "DriverUpgrading");
  CHECK(a.waiting["reset"].message.find("N6") != std::string::npos);
  // Once the upgrade is over the node is Available, and the reset starts.
  nodes[1].state.state = NodeState::Available;
  auto b =
      admit(input(nodes, kT0 + 1min), {}, {op("reset", NodeOperationType::Reset, {"n-1"}, kT0)});
  CHECK(started_nodes(b) == std::vector<std::string>{"n-1"});
}
