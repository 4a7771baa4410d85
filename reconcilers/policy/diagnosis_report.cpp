#include "reconcilers/policy/diagnosis_report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>

#include "reconcilers/policy/enum_words.hpp"
#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/node_state.hpp"
#include "reconcilers/policy/time.hpp"
#include "reconcilers/policy/training_job_risk.hpp"

namespace respool::policy {
namespace {

using Json = nlohmann::json;

constexpr EnumWords<Monitor, 3> kMonitorWords{{
    {Monitor::FaultMonitoring, "FaultMonitoring"},
    {Monitor::CodeErrorDetection, "CodeErrorDetection"},
    {Monitor::PerformanceMonitoring, "PerformanceMonitoring"},
}};

// The agent's conditions (H14, API.md): False is a finding, its reason the isolation code.
constexpr std::string_view kAgentConditions[] = {"GPUHealthy", "NPUHealthy", "InfiniBandHealthy",
                                                 "ClockSynchronized", "KubeletDirectoryWritable"};

constexpr std::size_t kMaxName = 253;

std::string hex32(std::string_view text) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  char out[9];
  std::snprintf(out, sizeof out, "%08x", h);
  return out;
}

// `base` + `suffix`, cut (with a hash of the whole) to a DNS subdomain's 253 characters.
std::string bounded_name(const std::string& base, const std::string& suffix) {
  if (base.size() + suffix.size() <= kMaxName) return base + suffix;
  std::string cut = base.substr(0, kMaxName - suffix.size() - 9);
  while (!cut.empty() && !std::isalnum(static_cast<unsigned char>(cut.back())))
    cut.pop_back();
  return cut + "-" + hex32(base) + suffix;
}

bool is_code(std::string_view s) {
  return s.size() == 7 && s[0] == 'A' &&
         std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Json device_json(const FaultyDevice& d) {
  Json out = Json::object();
  if (!d.node.empty()) out["node"] = d.node;
  if (!d.pod.empty()) out["pod"] = d.pod;
  if (d.worker) out["worker"] = *d.worker;
  if (d.exit_code) out["exitCode"] = *d.exit_code;
  if (!d.accelerator.empty()) out["accelerator"] = d.accelerator;
  if (!d.isolation_code.empty()) out["isolationCode"] = d.isolation_code;
  return out;
}

int rank(Risk risk) {
  switch (risk) {
    case Risk::High:
      return 3;
    case Risk::Medium:
      return 2;
    case Risk::Low:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

std::string_view to_string(Monitor monitor) {
  return word_of(kMonitorWords, monitor);
}

std::vector<NodeFinding> node_findings(const Json& node) {
  std::vector<NodeFinding> out;
  const Json& conditions = node.value("status", Json::object()).value("conditions", Json::array());
  for (const auto& c : conditions) {
    if (!c.is_object() || c.value("status", "") != "False") continue;
    const std::string type = c.value("type", "");
    if (std::find(std::begin(kAgentConditions), std::end(kAgentConditions), type) ==
        std::end(kAgentConditions))
      continue;
    NodeFinding f{type, c.value("reason", ""), "", c.value("message", "")};
    // The agent writes "<device>: <reading>; <device>: <reading>" (agent/report/conditions.cpp).
    if (auto colon = f.message.find(": "); colon != std::string::npos && colon < 80)
      f.device = f.message.substr(0, colon);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> codes_in(std::string_view reason) {
  std::vector<std::string> out;
  for (std::size_t open = reason.find('('); open != std::string_view::npos;
       open = reason.find('(', open + 1)) {
    const std::size_t close = reason.find(')', open);
    if (close == std::string_view::npos) break;
    std::string_view inside = reason.substr(open + 1, close - open - 1);
    while (!inside.empty()) {  // "(A050101, A050147)" names two
      const std::size_t comma = inside.find(", ");
      const std::string_view one = inside.substr(0, comma);
      if (is_code(one)) out.emplace_back(one);
      inside = comma == std::string_view::npos ? std::string_view() : inside.substr(comma + 2);
    }
  }
  return out;
}

DiagnosisResult code_error_result(const FailureCatalogue& catalogue, const FailureFinding& finding,
                                  FaultyDevice device) {
  const FailureEntry& entry = catalogue.entries().at(finding.entry);
  DiagnosisResult r;
  r.symptom = entry.symptom;
  r.category = entry.category;
  r.component = entry.component;
  r.module = entry.module;
  r.risk = entry.risk;
  r.catalog_entry = entry.name;
  r.solution = entry.solution;
  if (const auto& tb = finding.traceback) {
    r.fault = tb->exception + (tb->message.empty() ? "" : ": " + tb->message);
    if (!tb->file.empty())
      r.fault += " (" + tb->file + ":" + std::to_string(tb->line) +
                 (tb->function.empty() ? "" : ", in " + tb->function) + ")";
  } else if (finding.matched_by == "log" && !finding.key_lines.empty()) {
    r.fault = finding.key_lines.back().text;
  } else {
    r.fault = entry.symptom + " (" + finding.matched_by + ")";
  }
  for (const LogLine& line : finding.key_lines)
    r.key_lines.push_back({device.pod, line.time, line.text});
  r.device = std::move(device);
  return r;
}

std::optional<DiagnosisResult> fault_restart_result(const RunningRecord& record,
                                                    const std::vector<NodeFinding>& findings) {
  const std::string node = fault_node(record);
  if (node.empty()) return std::nullopt;
  DiagnosisResult r;
  r.symptom = "a worker's node failed and the job was restarted (" +
              std::string(to_string(record.end_recover)) + ")";
  r.fault = record.end_reason;
  r.category = FailureCategory::Hardware;
  r.component = "node";
  r.risk = Risk::Medium;
  r.device.node = node;
  const std::string& task = record.end_related_task;  // "worker-2"
  if (task.starts_with("worker-")) r.device.worker = std::atoi(task.c_str() + 7);
  const std::vector<std::string> codes = codes_in(record.end_reason);
  if (!codes.empty()) r.device.isolation_code = codes.front();
  if (const auto* known = codes.empty() ? nullptr : find_isolation_code(codes.front())) {
    r.module = std::string(known->category);
    r.symptom =
        "the node's " + std::string(known->category) + " failed: " + std::string(known->fault);
  } else if (record.end_reason.find("not ready") != std::string::npos) {
    r.module = "kubelet";
  } else {
    r.module = "node";
  }
  for (const NodeFinding& f : findings) {
    if (!r.device.isolation_code.empty() && f.code != r.device.isolation_code) continue;
    r.device.accelerator = f.device;
    if (r.device.isolation_code.empty()) r.device.isolation_code = f.code;
    break;
  }
  r.solution =
      "respool restarted the job without node " + node +
      (r.device.isolation_code.empty() ? std::string() : " (" + r.device.isolation_code + ")") +
      ". Have the node repaired or replaced (a NodeOperation Reset or Replace, or the "
      "pool's spec.remediation), and check that the job resumed from its last checkpoint.";
  return r;
}

std::string code_error_name(const std::string& pod, int restarts) {
  return bounded_name(pod, restarts > 0 ? "-code-" + std::to_string(restarts) : "-code");
}

std::string fault_restart_name(const std::string& job, std::size_t run) {
  return bounded_name(job, "-restart-" + std::to_string(run));
}

std::string straggler_name(const std::string& pod) {
  return bounded_name(pod, "-straggler");
}

void order_results(std::vector<DiagnosisResult>& results) {
  std::stable_sort(results.begin(), results.end(),
                   [](const auto& a, const auto& b) { return rank(a.risk) > rank(b.risk); });
}

Json results_json(const std::vector<DiagnosisResult>& results) {
  Json out = Json::array();
  for (const DiagnosisResult& r : results) {
    Json one = {{"symptom", r.symptom}, {"fault", r.fault}, {"risk", to_string(r.risk)}};
    if (r.category) one["category"] = to_string(*r.category);
    if (!r.component.empty()) one["component"] = r.component;
    if (!r.module.empty()) one["module"] = r.module;
    if (!r.catalog_entry.empty()) one["catalogEntry"] = r.catalog_entry;
    if (!r.solution.empty()) one["solution"] = r.solution;
    if (Json device = device_json(r.device); !device.empty()) one["device"] = std::move(device);
    Json lines = Json::array();
    for (const KeyLine& l : r.key_lines) {
      if (lines.size() == kKeyLines) break;
      Json line = {{"text", l.text}};
      if (!l.pod.empty()) line["pod"] = l.pod;
      if (!l.time.empty()) line["time"] = l.time;
      lines.push_back(std::move(line));
    }
    if (!lines.empty()) one["keyLines"] = std::move(lines);
    out.push_back(std::move(one));
    if (out.size() == 100) break;  // the schema's maxItems
  }
  return out;
}

Json job_info_json(const JobInfo& job) {
  Json out = {{"name", job.name}, {"workers", job.workers}};
  if (!job.uid.empty()) out["uid"] = job.uid;
  if (!job.pool.empty()) out["pool"] = job.pool;
  if (!job.resource_type.empty()) out["resourceType"] = job.resource_type;
  if (!job.phase.empty()) out["phase"] = job.phase;
  if (!job.creator.empty()) out["creator"] = job.creator;
  if (job.created != TimePoint{}) out["creationTimestamp"] = format_time(job.created);
  return out;
}

Json completed_status(Gathered g) {
  order_results(g.results);
  Json status = {
      {"phase", "Completed"},
      {"job", job_info_json(g.job)},
      {"startTime", format_time(g.started)},
      {"completionTime", format_time(g.completed)},
      {"duration",
       go_duration(std::chrono::duration_cast<std::chrono::milliseconds>(g.completed - g.started))},
      {"requests", g.requests},
      {"logBytes", g.log_bytes},
      {"results", results_json(g.results)}};
  status["risk"] = to_string(g.results.empty() ? Risk::NoRisk : g.results.front().risk);
  if (!g.results.empty() && g.results.front().category)
    status["category"] = to_string(*g.results.front().category);
  if (g.monitor) status["monitor"] = to_string(*g.monitor);
  if (!g.reason.empty()) status["reason"] = g.reason;
  status["message"] = !g.message.empty()  ? g.message
                      : g.results.empty() ? "nothing abnormal found"
                                          : g.results.front().fault;
  if (!g.creator.empty()) status["creator"] = g.creator;
  return status;
}

Json automatic_diagnosis(const std::string& name, const std::string& ns, const std::string& job,
                         const std::string& job_uid, Monitor monitor,
                         const std::string& description) {
  Json spec = {{"job", job}, {"type", "Automatic"}};
  if (!description.empty()) spec["description"] = description.substr(0, 1024);
  return {{"apiVersion", std::string(kApiVersion)},
          {"kind", "Diagnosis"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels", {{kDiagnosisJobLabel, job}, {kDiagnosisMonitorLabel, to_string(monitor)}}},
            {"ownerReferences", Json::array({{{"apiVersion", "batch/v1"},
                                              {"kind", "Job"},
                                              {"name", job},
                                              {"uid", job_uid},
                                              {"blockOwnerDeletion", false}}})}}},
          {"spec", std::move(spec)}};
}

}  // namespace respool::policy
