// P9: operation records, their lifecycle and retention.

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "reconcilers/policy/records.hpp"

using namespace respool::policy;
using nlohmann::json;
using respool::policy::test::kT0;
using std::chrono::days;
using std::chrono::hours;

TEST_CASE("records start, collect nodes and end, idempotently", "[policy][records][rule:P9]") {
  std::vector<Record> records;
  CHECK(begin_record(records, Operation::Create, kT0, "creating 3 nodes"));
  CHECK_FALSE(begin_record(records, Operation::Create, kT0 + hours{1}, "again"));
  REQUIRE(records.size() == 1);
  CHECK(records[0].start == kT0);
  CHECK(note_nodes(records, Operation::Create, std::vector<std::string>{"n-1", "n-2"}));
  CHECK(note_nodes(records, Operation::Create, std::vector<std::string>{"n-2", "n-3"}));
  CHECK(records[0].nodes == std::vector<std::string>{"n-1", "n-2", "n-3"});
  CHECK_FALSE(note_nodes(records, Operation::Resize, std::vector<std::string>{"x"}));
  CHECK(running_record(records, Operation::Create) == &records[0]);
  CHECK(end_record(records, Operation::Create, RecordPhase::Succeeded, kT0 + hours{2}, ""));
  CHECK_FALSE(end_record(records, Operation::Create, RecordPhase::Failed, kT0, ""));
  CHECK(running_record(records, Operation::Create) == nullptr);
  CHECK(records[0].phase == RecordPhase::Succeeded);
  CHECK(records[0].end == kT0 + hours{2});
  // A new one goes first.
  CHECK(begin_record(records, Operation::Resize, kT0 + hours{3}, "from 3 to 5 nodes"));
  CHECK(records[0].operation == Operation::Resize);
  CHECK(end_record(records, Operation::Resize, RecordPhase::Failed, kT0 + hours{4},
                   "no free node of flavor cpu-64c"));
  CHECK(records[0].message == "no free node of flavor cpu-64c");
}

TEST_CASE("P9: records are kept 90 days, failed ones 3 days and at most 500",
          "[policy][records][rule:P9]") {
  const TimePoint now = kT0 + days{200};
  std::vector<Record> records{
      {Operation::Create, RecordPhase::Succeeded, now - days{91}, now - days{91}, {}, "old", {}},
      {Operation::Resize, RecordPhase::Succeeded, now - days{89}, now - days{89}, {}, "kept", {}},
      {Operation::Resize, RecordPhase::Failed, now - days{4}, now - days{4}, {}, "old failure", {}},
      {Operation::Resize, RecordPhase::Failed, now - days{2}, now - days{2}, {}, "failure", {}},
      {Operation::SetJobTypes,
       RecordPhase::Running,
       now - days{300},
       std::nullopt,
       {},
       "running",
       {}},
  };
  auto kept = prune_records(records, now);
  std::vector<std::string> messages;
  for (const Record& r : kept)
    messages.push_back(r.message);
  // Newest first; the running one always stays.
  CHECK(messages == std::vector<std::string>{"failure", "kept", "running"});

  std::vector<Record> many;
  for (int i = 0; i < 600; ++i) {
    many.push_back({Operation::Resize,
                    RecordPhase::Failed,
                    now - std::chrono::minutes{i},
                    now - std::chrono::minutes{i},
                    {},
                    std::to_string(i),
                    {}});
  }
  for (int i = 0; i < 150; ++i) {
    many.push_back(
        {Operation::Resize, RecordPhase::Succeeded, now - hours{i}, now - hours{i}, {}, "ok", {}});
  }
  kept = prune_records(many, now);
  auto failed = std::count_if(kept.begin(), kept.end(),
                              [](const Record& r) { return r.phase == RecordPhase::Failed; });
  CHECK(failed == 500);
  CHECK(kept.size() == 600);
  CHECK(kept.front().message == "0");
  for (std::size_t i = 1; i < kept.size(); ++i)
    CHECK(kept[i - 1].start >= kept[i].start);
  // The 500 newest failures survive.
  CHECK(std::none_of(kept.begin(), kept.end(), [](const Record& r) { return r.message == "500"; }));
  CHECK(std::any_of(kept.begin(), kept.end(), [](const Record& r) { return r.message == "499"; }));
}

TEST_CASE("records round-trip through status JSON", "[policy][records][rule:P9]") {
  std::vector<Record> records{
      {Operation::Create, RecordPhase::Succeeded, kT0, kT0 + hours{1}, {"n-1"}, "done", {}},
      {Operation::Delete, RecordPhase::Running, kT0 + hours{2}, std::nullopt, {}, "", {}}};
  json out = to_json(records);
  CHECK(out[0] == json::parse(R"({"operation": "Create", "phase": "Succeeded",
    "startTime": "2026-01-01T00:00:00Z", "endTime": "2026-01-01T01:00:00Z", "nodes": ["n-1"],
    "message": "done"})"));
  CHECK(out[1] == json::parse(R"({"operation": "Delete", "phase": "Running",
    "startTime": "2026-01-01T02:00:00Z"})"));
  CHECK(records_from_json(out) == records);
  out.push_back(
      {{"operation", "Teleport"}, {"phase", "Running"}, {"startTime", "2026-01-01T00:00:00Z"}});
  out.push_back({{"operation", "Create"}, {"phase", "Running"}});
  CHECK(records_from_json(out).size() == 2);
  CHECK(parse_operation("SetJobTypes") == Operation::SetJobTypes);
}

TEST_CASE("claims an operator did not live to record are found for audit and record",
          "[policy][records][rule:P9][rule:A1]") {
  const std::vector<std::string> admitting{"n-3", "n-1", "n-2"};
  std::vector<Record> records;
  // Killed before its first status write: no record yet, every claim is unrecorded.
  CHECK(unrecorded_claims(records, Operation::Create, admitting) ==
        std::vector<std::string>{"n-1", "n-2", "n-3"});
  begin_record(records, Operation::Create, kT0, "creating");
  note_nodes(records, Operation::Create, std::vector<std::string>{"n-1", "n-2"});
  CHECK(unrecorded_claims(records, Operation::Create, admitting) ==
        std::vector<std::string>{"n-3"});
  CHECK(unrecorded_claims(records, Operation::Create, std::vector<std::string>{"n-2"}).empty());
  // Only the running record of the operation counts: a node an ended record names (claimed,
  // released, claimed again by a resize) is a new claim.
  end_record(records, Operation::Create, RecordPhase::Succeeded, kT0 + hours{1}, "");
  CHECK(unrecorded_claims(records, Operation::Resize, std::vector<std::string>{"n-1"}) ==
        std::vector<std::string>{"n-1"});
  begin_record(records, Operation::Resize, kT0 + hours{2}, "resizing");
  note_nodes(records, Operation::Resize, std::vector<std::string>{"n-1"});
  CHECK(unrecorded_claims(records, Operation::Resize, std::vector<std::string>{"n-1"}).empty());
}

namespace {

RecordRound created_round() {
  RecordRound r;
  r.created_before = true;
  r.planned = true;
  r.phase = "Running";
  r.total_nodes = 3;
  r.plan_settled = true;
  r.job_types = "Training, Inference";
  return r;
}

}  // namespace

TEST_CASE("P9: a job-type change is a record while nodes are relabelled",
          "[policy][records][rule:P9][rule:P12]") {
  std::vector<Record> records;
  RecordRound r = created_round();
  CHECK(track_pool_records(records, r, kT0).empty());
  CHECK(records.empty());  // nothing changed: no record
  r.relabelled = {"n-1", "n-2"};
  CHECK(track_pool_records(records, r, kT0).empty());
  REQUIRE(records.size() == 1);
  CHECK(records[0].operation == Operation::SetJobTypes);
  CHECK(records[0].phase == RecordPhase::Running);
  CHECK(records[0].message == "setting the job types to Training, Inference");
  r.relabelled = {"n-2", "n-3"};  // a lost race: n-2 again
  track_pool_records(records, r, kT0 + std::chrono::seconds(1));
  CHECK(records[0].nodes == std::vector<std::string>{"n-1", "n-2", "n-3"});
  r.relabelled.clear();  // every node carries the spec's job types
  auto ended = track_pool_records(records, r, kT0 + std::chrono::seconds(2));
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].operation == "SetJobTypes");
  CHECK(records[0].phase == RecordPhase::Succeeded);
  CHECK(records[0].message == "job types set to Training, Inference on 3 nodes");
  CHECK(track_pool_records(records, r, kT0 + std::chrono::seconds(3)).empty());
  CHECK(records.size() == 1);
}

TEST_CASE("P9: a tags change is a record that ends at once; status.tags is what it compares with",
          "[policy][records][rule:P9][rule:P11]") {
  const std::map<std::string, std::string> tags = {{"team", "a"}, {"tier", "gold"}};
  CHECK_FALSE(tags_change(json(), tags));  // a status from before status.tags: no record
  CHECK_FALSE(tags_change(json{{"team", "a"}, {"tier", "gold"}}, tags));
  CHECK(tags_change(json{{"team", "a"}}, tags) == "team=a, tier=gold");
  CHECK(tags_change(json{{"team", "a"}}, {}) == "");
  std::vector<Record> records;
  RecordRound r = created_round();
  r.tags_changed = "team=a, tier=gold";
  auto ended = track_pool_records(records, r, kT0);
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].operation == "SetTags");
  REQUIRE(records.size() == 1);
  CHECK(records[0].phase == RecordPhase::Succeeded);
  CHECK(records[0].message == "tags set to team=a, tier=gold");
  r.tags_changed = "";
  track_pool_records(records, r, kT0 + std::chrono::seconds(1));
  CHECK(records[0].message == "tags removed");
  CHECK(job_types_words({JobType::Inference, JobType::Training}) == "Inference, Training");
}
