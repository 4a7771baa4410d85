#include "reconcilers/policy/restart_ledger.hpp"

#include <algorithm>
#include <charconv>

#include "reconcilers/policy/json_read.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

int int_at(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

bool bool_at(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

std::optional<int> worker_index(std::string_view text) {
  if (text.starts_with("worker-")) text.remove_prefix(7);
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

nlohmann::json to_json(const RestartLedger& ledger, const FaultTolerance& tolerance) {
  nlohmann::json out = {{"retriesUsed", ledger.retries_used},
                        {"retriesLeft", std::max(0, tolerance.retries - ledger.retries_used)},
                        {"hangRestarts", ledger.hang_restarts},
                        {"run", ledger.run}};
  if (ledger.restarting && ledger.restarting_since) {
    const Fault& f = ledger.restarting->fault;
    nlohmann::json r = {{"since", format_time(*ledger.restarting_since)},
                        {"worker", "worker-" + std::to_string(f.worker)},
                        {"node", f.node},
                        {"reason", f.reason},
                        {"recover", to_string(f.recover)},
                        {"excludeNode", f.exclude_node}};
    if (ledger.restarting->before_downgrade != Recover::None)
      r["recoverBeforeDowngrade"] = to_string(ledger.restarting->before_downgrade);
    out["restarting"] = std::move(r);
  }
  if (ledger.last_hang_restart) out["lastHangRestart"] = format_time(*ledger.last_hang_restart);
  if (ledger.killing) {
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& [worker, count] : ledger.killing->restart_counts)
      counts[std::to_string(worker)] = count;
    out["killing"] = {{"at", format_time(ledger.killing->at)}, {"restartCounts", counts}};
  }
  if (!ledger.excluded_nodes.empty()) out["excludedNodes"] = ledger.excluded_nodes;
  if (ledger.exhausted_said) out["exhausted"] = true;
  if (ledger.job_rules_warned) out["jobRulesWarned"] = true;
  return out;
}

RestartLedger restart_ledger_from_json(const nlohmann::json& object) {
  RestartLedger l;
  if (!object.is_object()) return l;
  l.retries_used = std::max(0, int_at(object, "retriesUsed"));
  l.hang_restarts = std::max(0, int_at(object, "hangRestarts"));
  l.run = std::max(0, int_at(object, "run"));
  l.exhausted_said = bool_at(object, "exhausted");
  l.job_rules_warned = bool_at(object, "jobRulesWarned");
  l.last_hang_restart = json_read::time_at(object, "lastHangRestart");
  if (auto it = object.find("restarting"); it != object.end() && it->is_object()) {
    auto since = json_read::time_at(*it, "since");
    auto worker = worker_index(json_read::string_at(*it, "worker"));
    auto recover = parse_recover(json_read::string_at(*it, "recover"));
    auto before = parse_recover(json_read::string_at(*it, "recoverBeforeDowngrade"));
    if (since && worker && recover && before) {
      Restarting r;
      r.fault.worker = *worker;
      r.fault.node = json_read::string_at(*it, "node");
      r.fault.reason = json_read::string_at(*it, "reason");
      r.fault.recover = *recover;
      r.fault.exclude_node = bool_at(*it, "excludeNode");
      r.before_downgrade = *before;
      l.restarting = std::move(r);
      l.restarting_since = since;
    }
  }
  if (auto it = object.find("killing"); it != object.end() && it->is_object()) {
    if (auto at = json_read::time_at(*it, "at")) {
      Killing k;
      k.at = *at;
      if (auto counts = it->find("restartCounts"); counts != it->end() && counts->is_object()) {
        for (const auto& [key, value] : counts->items()) {
          auto worker = worker_index(key);
          if (worker && value.is_number_integer()) k.restart_counts[*worker] = value.get<int>();
        }
      }
      l.killing = std::move(k);
    }
  }
  if (auto it = object.find("excludedNodes"); it != object.end() && it->is_array()) {
    for (const auto& node : *it)
      if (node.is_string()) l.excluded_nodes.push_back(node.get<std::string>());
  }
  return l;
}

}  // namespace respool::policy
