#pragma once
// The running records of a training job (J7), kept on the Job as the annotation
// respool.io/running-records: one per run, newest last, the 128 latest, with the documents'
// fields. A run starts when its pods run after scheduling (init_or_rescheduled) or after an
// in-place restart (restarted), and ends with a reason, the worker that ended it and the
// recovery that followed.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/training_faults.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

inline constexpr const char* kRunningRecordsAnnotation = "respool.io/running-records";
inline constexpr std::size_t kMaxRunningRecords = 128;

enum class StartType { InitOrRescheduled, Restarted };

struct RunningRecord {
  TimePoint start_at{};
  std::optional<TimePoint> end_at;
  StartType start_type = StartType::InitOrRescheduled;
  std::string end_reason;        // "node n-3 not ready (A050202)", "exit with 1", "job completed"
  std::string end_related_task;  // "worker-2"
  Recover end_recover = Recover::None;
  Recover end_recover_before_downgrade = Recover::None;
  bool operator==(const RunningRecord&) const = default;
};

// A new run (the previous one, if still open, is left as it is: end it first).
void start_run(std::vector<RunningRecord>& records, StartType type, TimePoint at);
// Ends the open run; false when none is open.
bool end_run(std::vector<RunningRecord>& records, TimePoint at, std::string reason, int worker,
             Recover recover, Recover before_downgrade = Recover::None);

// JSON as the annotation holds it: [{"startAt": "<RFC 3339>", "endAt": ..., "startType":
// "init_or_rescheduled", "endReason": ..., "endRelatedTask": "worker-2", "endRecover": ...,
// "endRecoverBeforeDowngrade": ...}], bounded to the 128 latest.
nlohmann::json to_json(const std::vector<RunningRecord>& records);
// Lenient: entries without a start time or with unknown values are skipped.
std::vector<RunningRecord> running_records_from_json(const nlohmann::json& array);

}  // namespace respool::policy
