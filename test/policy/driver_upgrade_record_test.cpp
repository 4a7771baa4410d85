// The P9 record of a driver upgrade (issue 14): begins when the first node is marked, lists each
// node's start, end, failure and retry as steps with their times, notes a retarget, waits for
// retries that are due, and ends Succeeded or Failed naming the failed nodes. It is derived from
// the nodes each round, so repeating a round (a restarted operator) adds nothing.

#include <catch2/catch.hpp>

#include "reconcilers/policy/driver_upgrade_record.hpp"
#include "reconcilers/policy/time.hpp"

using namespace respool::policy;
using namespace std::chrono_literals;

namespace {

const TimePoint t0 = *parse_time("2026-11-24T10:00:00Z");

UpgradedNode node(const std::string& name, UpgradeState state, const std::string& running,
                  std::optional<TimePoint> since = std::nullopt, int attempts = 0,
                  std::string failure = "") {
  UpgradedNode u;
  u.node.name = name;
  u.node.target = "550.54.15";
  u.node.running = running;
  u.node.state = state;
  u.node.since = since;
  u.node.attempts = attempts;
  u.failure = std::move(failure);
  return u;
}

struct Round {
  std::vector<Record> records;
  std::optional<EndedRecord> run(const std::vector<UpgradedNode>& nodes, TimePoint now,
                                 const std::string& target = "GPU driver 550.54.15") {
    const DriverProgress progress = driver_progress(nodes, "550.54.15", std::nullopt);
    return track_driver_record(records, {nodes, &progress, target, 2}, now);
  }
  const Record& upgrade() const {
    for (const Record& r : records)
      if (r.operation == Operation::UpgradeDriver) return r;
    FAIL("no UpgradeDriver record");
    return records.front();
  }
  std::vector<std::string> steps() const {
    std::vector<std::string> out;
    for (const RecordStep& s : upgrade().steps)
      out.push_back(s.step + (s.node.empty() ? "" : " " + s.node));
    return out;
  }
};

}  // namespace

TEST_CASE("P9: a driver upgrade's record lists each node's steps and ends Succeeded",
          "[policy][driver][rule:P9]") {
  Round r;
  // Nothing marked: no record.
  CHECK_FALSE(r.run({node("a", UpgradeState::None, "535.104.05")}, t0));
  CHECK(r.records.empty());

  CHECK_FALSE(r.run({node("a", UpgradeState::Required, "535.104.05"),
                     node("b", UpgradeState::Required, "535.104.05")},
                    t0));
  REQUIRE(r.records.size() == 1);
  CHECK(r.upgrade().phase == RecordPhase::Running);
  CHECK(r.upgrade().message == "upgrading to the GPU driver 550.54.15");
  CHECK(r.steps() == std::vector<std::string>{"Started"});

  CHECK_FALSE(r.run({node("a", UpgradeState::CordonRequired, "535.104.05", t0 + 1s),
                     node("b", UpgradeState::Required, "535.104.05")},
                    t0 + 2s));
  // The same round again (a restarted operator) adds nothing.
  CHECK_FALSE(r.run({node("a", UpgradeState::ValidationRequired, "535.104.05", t0 + 3s),
                     node("b", UpgradeState::Required, "535.104.05")},
                    t0 + 4s));
  CHECK(r.steps() == std::vector<std::string>{"Started", "NodeStarted a"});

  CHECK_FALSE(r.run({node("a", UpgradeState::Done, "550.54.15", t0 + 5s),
                     node("b", UpgradeState::DriverRestartRequired, "535.104.05", t0 + 5s)},
                    t0 + 6s));
  auto ended = r.run({node("a", UpgradeState::Done, "550.54.15", t0 + 5s),
                      node("b", UpgradeState::Done, "550.54.15", t0 + 8s)},
                     t0 + 9s);
  REQUIRE(ended);
  CHECK(ended->operation == "UpgradeDriver");
  CHECK(ended->result == "Succeeded");
  const Record& done = r.upgrade();
  CHECK(done.phase == RecordPhase::Succeeded);
  CHECK(done.end == t0 + 9s);
  CHECK(done.nodes == std::vector<std::string>{"a", "b"});
  CHECK(r.steps() == std::vector<std::string>{"Started", "NodeStarted a", "NodeUpgraded a",
                                              "NodeStarted b", "NodeUpgraded b"});
  CHECK(done.steps[2].time == t0 + 5s);  // when the node finished, from its label's time
  CHECK(done.message == "every node runs the GPU driver 550.54.15 (2 upgraded)");
  // Over: a later round neither reopens it nor starts another.
  CHECK_FALSE(r.run({node("a", UpgradeState::Done, "550.54.15", t0 + 5s),
                     node("b", UpgradeState::Done, "550.54.15", t0 + 8s)},
                    t0 + 20s));
  CHECK(r.records.size() == 1);

  // Round trip through the status keeps the steps.
  CHECK(records_from_json(to_json(r.records)) == r.records);
}

TEST_CASE("P9: a failed node is waited for while its retries are due, then the record fails",
          "[policy][driver][rule:P9]") {
  Round r;
  r.run({node("a", UpgradeState::CordonRequired, "535.104.05", t0),
         node("b", UpgradeState::CordonRequired, "535.104.05", t0)},
        t0);
  const std::string cause = "ValidationTimeout: the driver pod is not Ready";
  // a failed with a retry still due: the upgrade is not over though nothing is in flight.
  CHECK_FALSE(r.run({node("a", UpgradeState::Failed, "535.104.05", t0 + 10min, 0, cause),
                     node("b", UpgradeState::Done, "550.54.15", t0 + 2min)},
                    t0 + 11min));
  CHECK(r.upgrade().phase == RecordPhase::Running);
  // The retry: a is in flight again.
  r.run({node("a", UpgradeState::DriverRestartRequired, "535.104.05", t0 + 15min, 1),
         node("b", UpgradeState::Done, "550.54.15", t0 + 2min)},
        t0 + 15min);
  // Failed once more, with no retry left (attempts at the limit): the record ends Failed.
  auto ended = r.run({node("a", UpgradeState::Failed, "535.104.05", t0 + 25min, 2, cause),
                      node("b", UpgradeState::Done, "550.54.15", t0 + 2min)},
                     t0 + 26min);
  REQUIRE(ended);
  CHECK(ended->result == "Failed");
  CHECK(r.steps() == std::vector<std::string>{"Started", "NodeStarted a", "NodeStarted b",
                                              "NodeFailed a", "NodeUpgraded b", "NodeRetried a",
                                              "NodeFailed a"});
  CHECK(r.upgrade().steps[3].message == cause);
  CHECK(r.upgrade().message ==
        "the upgrade to the GPU driver 550.54.15 failed on a (ValidationTimeout); 1 upgraded");
}

TEST_CASE("P9: a target changed mid-upgrade is a step of the same record",
          "[policy][driver][rule:P9]") {
  Round r;
  r.run({node("a", UpgradeState::CordonRequired, "535.104.05", t0)}, t0);
  r.run({node("a", UpgradeState::CordonRequired, "535.104.05", t0)}, t0 + 1s, "GPU driver 560.1");
  CHECK(r.records.size() == 1);
  CHECK(r.steps() == std::vector<std::string>{"Started", "NodeStarted a", "Retargeted"});
  CHECK(r.upgrade().steps.back().message == "GPU driver 560.1");
  CHECK(r.upgrade().message == "upgrading to the GPU driver 560.1");
}

TEST_CASE("P9: a record's steps are bounded, the oldest dropped", "[policy][rule:P9]") {
  std::vector<Record> records;
  begin_record(records, Operation::UpgradeDriver, t0, "x");
  for (std::size_t i = 0; i < kMaxRecordSteps + 10; ++i)
    add_step(records, Operation::UpgradeDriver,
             {"NodeUpgraded", t0 + std::chrono::seconds(i), "n-" + std::to_string(i), ""});
  REQUIRE(records[0].steps.size() == kMaxRecordSteps);
  CHECK(records[0].steps.front().node == "n-10");
  CHECK(records[0].steps.back().node == "n-" + std::to_string(kMaxRecordSteps + 9));
}

TEST_CASE("P9: a record begun in the second the last one ended does not repeat its nodes",
          "[policy][driver][rule:P9]") {
  // Seen in ./dev run: the upgrade ended as a replacement was claimed, in the same second; the
  // replacement's validation began a second record, which listed the nodes the first had.
  Round r;
  r.run({node("a", UpgradeState::CordonRequired, "535.104.05", t0)}, t0);
  REQUIRE(r.run({node("a", UpgradeState::Done, "550.54.15", t0 + 9s)}, t0 + 9s));
  REQUIRE(r.records.size() == 1);
  CHECK_FALSE(r.run({node("a", UpgradeState::Done, "550.54.15", t0 + 9s),
                     node("c", UpgradeState::ValidationRequired, "535.104.05", t0 + 9s)},
                    t0 + 9s));
  REQUIRE(r.records.size() == 2);
  const Record* second = nullptr;
  for (const Record& rec : r.records)
    if (rec.phase == RecordPhase::Running) second = &rec;
  REQUIRE(second);
  auto names = [&] {
    std::vector<std::string> out;
    for (const RecordStep& s : second->steps)
      out.push_back(s.step + (s.node.empty() ? "" : " " + s.node));
    return out;
  };
  CHECK(names() == std::vector<std::string>{"Started", "NodeStarted c"});
  REQUIRE(r.run({node("a", UpgradeState::Done, "550.54.15", t0 + 9s),
                 node("c", UpgradeState::Done, "550.54.15", t0 + 12s)},
                t0 + 12s));
  CHECK(names() == std::vector<std::string>{"Started", "NodeStarted c", "NodeUpgraded c"});
  CHECK(second->nodes == std::vector<std::string>{"c"});
}
