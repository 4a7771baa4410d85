#include "reconcilers/policy/running_records.hpp"

#include "reconcilers/policy/json_read.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

void start_run(std::vector<RunningRecord>& records, StartType type, TimePoint at) {
  RunningRecord r;
  r.start_at = at;
  r.start_type = type;
  records.push_back(std::move(r));
  if (records.size() > kMaxRunningRecords)
    records.erase(records.begin(), records.end() - kMaxRunningRecords);
}

bool end_run(std::vector<RunningRecord>& records, TimePoint at, std::string reason, int worker,
             Recover recover, Recover before_downgrade) {
  if (records.empty() || records.back().end_at) return false;
  RunningRecord& r = records.back();
  r.end_at = at;
  r.end_reason = std::move(reason);
  r.end_related_task = worker >= 0 ? "worker-" + std::to_string(worker) : std::string();
  r.end_recover = recover;
  r.end_recover_before_downgrade = before_downgrade;
  return true;
}

nlohmann::json to_json(const std::vector<RunningRecord>& records) {
  nlohmann::json out = nlohmann::json::array();
  const std::size_t first =
      records.size() > kMaxRunningRecords ? records.size() - kMaxRunningRecords : 0;
  for (std::size_t i = first; i < records.size(); ++i) {
    const RunningRecord& r = records[i];
    nlohmann::json item = {
        {"startAt", format_time(r.start_at)},
        {"startType", r.start_type == StartType::Restarted ? "restarted" : "init_or_rescheduled"}};
    if (r.end_at) item["endAt"] = format_time(*r.end_at);
    if (!r.end_reason.empty()) item["endReason"] = r.end_reason;
    if (!r.end_related_task.empty()) item["endRelatedTask"] = r.end_related_task;
    if (r.end_recover != Recover::None) item["endRecover"] = to_string(r.end_recover);
    if (r.end_recover_before_downgrade != Recover::None)
      item["endRecoverBeforeDowngrade"] = to_string(r.end_recover_before_downgrade);
    out.push_back(std::move(item));
  }
  return out;
}

std::vector<RunningRecord> running_records_from_json(const nlohmann::json& array) {
  std::vector<RunningRecord> out;
  if (!array.is_array()) return out;
  for (const auto& item : array) {
    if (!item.is_object()) continue;
    auto start = json_read::time_at(item, "startAt");
    const std::string type = json_read::string_at(item, "startType");
    auto recover = parse_recover(json_read::string_at(item, "endRecover"));
    auto before = parse_recover(json_read::string_at(item, "endRecoverBeforeDowngrade"));
    if (!start || (type != "restarted" && type != "init_or_rescheduled") || !recover || !before)
      continue;
    RunningRecord r;
    r.start_at = *start;
    r.start_type = type == "restarted" ? StartType::Restarted : StartType::InitOrRescheduled;
    r.end_at = json_read::time_at(item, "endAt");
    r.end_reason = json_read::string_at(item, "endReason");
    r.end_related_task = json_read::string_at(item, "endRelatedTask");
    r.end_recover = *recover;
    r.end_recover_before_downgrade = *before;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace respool::policy
