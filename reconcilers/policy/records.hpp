#pragma once
// Operation records of a pool (P9), kept in status.records, newest first: each create, resize,
// job-type change, driver upgrade or deletion, with its start, end, outcome, the nodes it
// touched and, for a failure, its cause. Kept at most 90 days after they end; failed ones at most
// 3 days and at most 500; other finished ones at most 100 (status lives in etcd: bounded).

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/types.hpp"

namespace respool::policy {

enum class Operation { Create, Resize, SetJobTypes, SetTags, UpgradeDriver, Delete };
std::string_view to_string(Operation operation);
std::optional<Operation> parse_operation(std::string_view text);

enum class RecordPhase { Running, Succeeded, Failed };
std::string_view to_string(RecordPhase phase);

// One step of an operation, with its time: for a driver upgrade, each node that starts,
// finishes, fails or is retried (`node` names it), and a change of target.
struct RecordStep {
  std::string step;
  TimePoint time{};
  std::string node;  // "" for a step of the whole operation
  std::string message;
  bool operator==(const RecordStep&) const = default;
};
inline constexpr std::size_t kMaxRecordSteps = 400;  // status lives in etcd: bounded

struct Record {
  Operation operation = Operation::Create;
  RecordPhase phase = RecordPhase::Running;
  TimePoint start{};
  std::optional<TimePoint> end;
  std::vector<std::string> nodes;  // nodes added or removed, in order
  std::string message;             // what it does, or why it failed
  std::vector<RecordStep> steps;   // in order; the oldest dropped past kMaxRecordSteps
  bool operator==(const Record&) const = default;
};

inline constexpr auto kRecordRetention = std::chrono::days{90};       // P9
inline constexpr auto kFailedRecordRetention = std::chrono::days{3};  // P9
inline constexpr std::size_t kMaxFailedRecords = 500;                 // P9
inline constexpr std::size_t kMaxOtherRecords = 100;

// Starts a record of `operation` (first in the list), unless one is already running: then
// nothing changes, so that a reconcile that repeats is harmless. True when it started one.
bool begin_record(std::vector<Record>& records, Operation operation, TimePoint now,
                  std::string message);
// Adds nodes (those not yet listed) to the running record of `operation`; false when none runs.
bool note_nodes(std::vector<Record>& records, Operation operation,
                std::span<const std::string> nodes);
// Appends a step to the running record of `operation`; false when none runs.
bool add_step(std::vector<Record>& records, Operation operation, RecordStep step);
// Ends the running record of `operation` with `outcome` (Succeeded or Failed). False when none
// runs.
bool end_record(std::vector<Record>& records, Operation operation, RecordPhase outcome,
                TimePoint now, std::string message);
// The running record of `operation`, or nullptr.
const Record* running_record(const std::vector<Record>& records, Operation operation);

// Nodes of `admitting` (pool nodes still under admission) that the running record of
// `operation` does not list: claims whose status write never happened, because the operator
// that made them stopped first (killed, or deposed as leader). Sorted.
std::vector<std::string> unrecorded_claims(const std::vector<Record>& records, Operation operation,
                                           std::span<const std::string> admitting);

// P9 retention: newest first (by start), finished records past their retention dropped, failed
// records bounded to 500 and others to 100. Running records always stay.
std::vector<Record> prune_records(std::vector<Record> records, TimePoint now);

nlohmann::json to_json(const std::vector<Record>& records);
// Lenient: entries with an unknown operation or phase, or without a start time, are skipped.
std::vector<Record> records_from_json(const nlohmann::json& array);

// What one reconcile of a pool saw and did, for its P9 records.
struct RecordRound {
  bool created_before = false;  // the status showed a created pool
  bool planned = false;         // the spec was valid and a plan was made
  std::string phase;            // the new status's phase
  int total_nodes = 0;
  std::string invalid;                         // the violations, joined ("" when none)
  std::vector<std::string> claimed, released;  // nodes this round (or an unrecorded one) moved
  bool moved_now = false;                      // this round itself claimed or released nodes
  bool plan_settled = false;
  int creating = 0, deleting = 0;  // the new status's counts
  // A job-type change: the nodes whose job-type labels this round set to the spec's, and the
  // spec's job types in words ("Training, Inference").
  std::vector<std::string> relabelled;
  std::string job_types;
  // A tags change: the spec's tags in words ("team=a, tier=gold"; "" for none) when they differ
  // from the tags the status last showed; nullopt when they do not (or the status never showed
  // any: a pool from before status.tags).
  std::optional<std::string> tags_changed;
};
// An operation that ended with this round: ("Create", "Succeeded").
struct EndedRecord {
  std::string operation, result;
};

// Create until the pool is created (Running or Abnormal: Succeeded; Failed: Failed), then a
// Resize for as long as nodes are claimed or released and until the counts settle; the nodes
// each one moved are noted. A SetJobTypes for as long as nodes are relabelled (it ends in the
// first round that finds every node labelled), a SetTags when the tags change (they touch
// nothing in the cluster: it begins and ends at once). Returns what ended.
std::vector<EndedRecord> track_pool_records(std::vector<Record>& records, const RecordRound& round,
                                            TimePoint now);

// "Training, Inference", in the spec's order.
std::string job_types_words(const std::vector<JobType>& job_types);
// RecordRound::tags_changed: `shown` is the status's `tags` (absent: null), `wanted` the spec's.
std::optional<std::string> tags_change(const nlohmann::json& shown,
                                       const std::map<std::string, std::string>& wanted);

}  // namespace respool::policy
