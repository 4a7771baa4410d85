#include "reconcilers/policy/records.hpp"

#include <algorithm>
#include <array>

#include "reconcilers/policy/json_read.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

constexpr std::array<std::string_view, 6> kOperationNames{"Create",  "Resize",        "SetJobTypes",
                                                          "SetTags", "UpgradeDriver", "Delete"};

Record* find_running(std::vector<Record>& records, Operation operation) {
  for (Record& r : records) {
    if (r.operation == operation && r.phase == RecordPhase::Running) return &r;
  }
  return nullptr;
}

}  // namespace

std::string_view to_string(Operation operation) {
  return kOperationNames[int(operation)];
}

std::optional<Operation> parse_operation(std::string_view text) {
  for (std::size_t i = 0; i < kOperationNames.size(); ++i) {
    if (kOperationNames[i] == text) return Operation(i);
  }
  return std::nullopt;
}

std::string_view to_string(RecordPhase phase) {
  switch (phase) {
    case RecordPhase::Running:
      return "Running";
    case RecordPhase::Succeeded:
      return "Succeeded";
    case RecordPhase::Failed:
      return "Failed";
  }
  return "";
}

bool begin_record(std::vector<Record>& records, Operation operation, TimePoint now,
                  std::string message) {
  if (find_running(records, operation)) return false;
  records.insert(
      records.begin(),
      Record{operation, RecordPhase::Running, now, std::nullopt, {}, std::move(message), {}});
  return true;
}

bool note_nodes(std::vector<Record>& records, Operation operation,
                std::span<const std::string> nodes) {
  Record* r = find_running(records, operation);
  if (!r) return false;
  for (const std::string& n : nodes) {
    if (std::find(r->nodes.begin(), r->nodes.end(), n) == r->nodes.end()) r->nodes.push_back(n);
  }
  return true;
}

bool add_step(std::vector<Record>& records, Operation operation, RecordStep step) {
  Record* r = find_running(records, operation);
  if (!r) return false;
  r->steps.push_back(std::move(step));
  if (r->steps.size() > kMaxRecordSteps)
    r->steps.erase(r->steps.begin(), r->steps.end() - kMaxRecordSteps);
  return true;
}

bool end_record(std::vector<Record>& records, Operation operation, RecordPhase outcome,
                TimePoint now, std::string message) {
  Record* r = find_running(records, operation);
  if (!r) return false;
  r->phase = outcome;
  r->end = now;
  r->message = std::move(message);
  return true;
}

const Record* running_record(const std::vector<Record>& records, Operation operation) {
  for (const Record& r : records) {
    if (r.operation == operation && r.phase == RecordPhase::Running) return &r;
  }
  return nullptr;
}

std::vector<std::string> unrecorded_claims(const std::vector<Record>& records, Operation operation,
                                           std::span<const std::string> admitting) {
  const Record* running = running_record(records, operation);
  std::vector<std::string> out;
  for (const auto& node : admitting) {
    if (!running ||
        std::find(running->nodes.begin(), running->nodes.end(), node) == running->nodes.end()) {
      out.push_back(node);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Record> prune_records(std::vector<Record> records, TimePoint now) {
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.start > b.start; });
  std::vector<Record> kept;
  std::size_t failed = 0, other = 0;
  for (Record& r : records) {
    if (r.phase == RecordPhase::Running) {
      kept.push_back(std::move(r));
      continue;
    }
    const TimePoint ended = r.end.value_or(r.start);
    if (r.phase == RecordPhase::Failed) {
      if (now - ended > kFailedRecordRetention || ++failed > kMaxFailedRecords) continue;
    } else if (now - ended > kRecordRetention || ++other > kMaxOtherRecords) {
      continue;
    }
    kept.push_back(std::move(r));
  }
  return kept;
}

nlohmann::json to_json(const std::vector<Record>& records) {
  nlohmann::json array = nlohmann::json::array();
  for (const Record& r : records) {
    nlohmann::json item = {{"operation", to_string(r.operation)},
                           {"phase", to_string(r.phase)},
                           {"startTime", format_time(r.start)}};
    if (r.end) item["endTime"] = format_time(*r.end);
    if (!r.nodes.empty()) item["nodes"] = r.nodes;
    if (!r.message.empty()) item["message"] = r.message;
    if (!r.steps.empty()) {
      nlohmann::json steps = nlohmann::json::array();
      for (const RecordStep& s : r.steps) {
        nlohmann::json step = {{"step", s.step}, {"time", format_time(s.time)}};
        if (!s.node.empty()) step["node"] = s.node;
        if (!s.message.empty()) step["message"] = s.message;
        steps.push_back(std::move(step));
      }
      item["steps"] = std::move(steps);
    }
    array.push_back(std::move(item));
  }
  return array;
}

std::vector<Record> records_from_json(const nlohmann::json& array) {
  std::vector<Record> out;
  if (!array.is_array()) return out;
  for (const auto& item : array) {
    if (!item.is_object()) continue;
    auto operation = parse_operation(item.value("operation", ""));
    auto start = parse_time(item.value("startTime", ""));
    std::string phase = item.value("phase", "");
    if (!operation || !start) continue;
    Record r;
    r.operation = *operation;
    r.start = *start;
    if (phase == "Succeeded") {
      r.phase = RecordPhase::Succeeded;
    } else if (phase == "Failed") {
      r.phase = RecordPhase::Failed;
    } else if (phase != "Running") {
      continue;
    }
    if (auto end = item.find("endTime"); end != item.end() && end->is_string()) {
      r.end = parse_time(end->get<std::string>());
    }
    if (auto nodes = item.find("nodes"); nodes != item.end() && nodes->is_array()) {
      for (const auto& n : *nodes) {
        if (n.is_string()) r.nodes.push_back(n.get<std::string>());
      }
    }
    r.message = item.value("message", "");
    if (auto steps = item.find("steps"); steps != item.end() && steps->is_array()) {
      for (const auto& s : *steps) {
        if (!s.is_object()) continue;
        auto time = json_read::time_at(s, "time");
        std::string step = json_read::string_at(s, "step");
        if (!time || step.empty()) continue;
        r.steps.push_back({std::move(step), *time, json_read::string_at(s, "node"),
                           json_read::string_at(s, "message")});
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string job_types_words(const std::vector<JobType>& job_types) {
  std::string out;
  for (JobType t : job_types)
    out += (out.empty() ? "" : ", ") + std::string(to_string(t));
  return out;
}

std::optional<std::string> tags_change(const nlohmann::json& shown,
                                       const std::map<std::string, std::string>& wanted) {
  if (!shown.is_object()) return std::nullopt;  // never shown: nothing to compare with
  std::map<std::string, std::string> before;
  for (const auto& [key, value] : shown.items())
    if (value.is_string()) before[key] = value.get<std::string>();
  if (before == wanted) return std::nullopt;
  std::string words;
  for (const auto& [key, value] : wanted)
    words += (words.empty() ? "" : ", ") + key + "=" + value;
  return words;
}

namespace {

void track_resize(std::vector<Record>& records, const RecordRound& r, TimePoint now,
                  std::vector<EndedRecord>& ended) {
  const bool resizing =
      !r.claimed.empty() || !r.released.empty() || running_record(records, Operation::Resize);
  if (!resizing) return;
  begin_record(records, Operation::Resize, now, "resizing the pool");
  note_nodes(records, Operation::Resize, r.claimed);
  note_nodes(records, Operation::Resize, r.released);
  if (r.plan_settled && !r.moved_now && r.creating == 0 && r.deleting == 0) {
    end_record(records, Operation::Resize, RecordPhase::Succeeded, now,
               "pool resized to " + std::to_string(r.total_nodes) + " nodes");
    ended.push_back({"Resize", "Succeeded"});
  }
}

void track_job_types(std::vector<Record>& records, const RecordRound& r, TimePoint now,
                     std::vector<EndedRecord>& ended) {
  const Record* running = running_record(records, Operation::SetJobTypes);
  if (r.relabelled.empty() && !running) return;
  begin_record(records, Operation::SetJobTypes, now, "setting the job types to " + r.job_types);
  note_nodes(records, Operation::SetJobTypes, r.relabelled);
  if (!r.relabelled.empty()) return;
  const Record* done = running_record(records, Operation::SetJobTypes);
  end_record(
      records, Operation::SetJobTypes, RecordPhase::Succeeded, now,
      "job types set to " + r.job_types + " on " + std::to_string(done->nodes.size()) + " nodes");
  ended.push_back({"SetJobTypes", "Succeeded"});
}

void track_tags(std::vector<Record>& records, const RecordRound& r, TimePoint now,
                std::vector<EndedRecord>& ended) {
  if (!r.tags_changed) return;
  const std::string words =
      r.tags_changed->empty() ? "tags removed" : "tags set to " + *r.tags_changed;
  begin_record(records, Operation::SetTags, now, words);
  end_record(records, Operation::SetTags, RecordPhase::Succeeded, now, words);
  ended.push_back({"SetTags", "Succeeded"});
}

}  // namespace

std::vector<EndedRecord> track_pool_records(std::vector<Record>& records, const RecordRound& r,
                                            TimePoint now) {
  std::vector<EndedRecord> ended;
  if (!r.created_before) {
    begin_record(records, Operation::Create, now, "creating the pool");
    note_nodes(records, Operation::Create, r.claimed);
    if (r.phase == "Running" || r.phase == "Abnormal") {
      end_record(records, Operation::Create, RecordPhase::Succeeded, now,
                 "pool created with " + std::to_string(r.total_nodes) + " nodes");
      ended.push_back({"Create", "Succeeded"});
    } else if (r.phase == "Failed") {
      end_record(records, Operation::Create, RecordPhase::Failed, now, r.invalid);
      ended.push_back({"Create", "Failed"});
    }
    return ended;
  }
  if (!r.planned) return ended;
  track_resize(records, r, now, ended);
  track_job_types(records, r, now, ended);
  track_tags(records, r, now, ended);
  return ended;
}

}  // namespace respool::policy
