#include "sandbox/simulator/node_faults.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "apimachinery/quantity.hpp"
#include "sandbox/simulator/conditions.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox {
namespace {

using Json = nlohmann::json;

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

bool valid_code(std::string_view code) {
  return !code.empty() && code.size() <= 63 && std::all_of(code.begin(), code.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
  });
}

}  // namespace

ParsedFaults parse_faults(std::string_view annotation) {
  ParsedFaults out;
  std::size_t start = 0;
  while (start <= annotation.size()) {
    std::size_t comma = annotation.find(',', start);
    if (comma == std::string_view::npos) comma = annotation.size();
    const std::string item = trim(annotation.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string name = trim(item.substr(0, eq));
    const std::string arg = eq == std::string::npos ? std::string() : trim(item.substr(eq + 1));
    if (name == "NotReady" && eq == std::string::npos) {
      out.faults.not_ready = true;
    } else if (name == "Unreachable" && eq == std::string::npos) {
      out.faults.unreachable = true;
    } else if (name == "Isolate" && valid_code(arg)) {
      auto& codes = out.faults.isolation_codes;
      if (std::find(codes.begin(), codes.end(), arg) == codes.end()) codes.push_back(arg);
    } else if (name == "AcceleratorLoss") {
      int n = 0;
      auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), n);
      if (ec != std::errc() || end != arg.data() + arg.size() || n < 0) {
        out.errors.push_back(item + ": AcceleratorLoss takes a non-negative count");
      } else {
        out.faults.accelerator_loss = n;
      }
    } else {
      out.errors.push_back(
          item + ": not a fault (NotReady, Unreachable, Isolate=CODE, AcceleratorLoss=N)");
    }
  }
  return out;
}

std::string format_faults(const NodeFaults& faults) {
  std::vector<std::string> items;
  if (faults.not_ready) items.push_back("NotReady");
  if (faults.unreachable) items.push_back("Unreachable");
  for (const auto& code : faults.isolation_codes)
    items.push_back("Isolate=" + code);
  if (faults.accelerator_loss > 0)
    items.push_back("AcceleratorLoss=" + std::to_string(faults.accelerator_loss));
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : ",") + item;
  return out;
}

namespace sim {
namespace {

const char* const kPressure[] = {"MemoryPressure", "DiskPressure", "PIDPressure"};

void set_healthy(Json& node, std::chrono::system_clock::time_point now) {
  set_condition(node,
                {"MemoryPressure", "False", "KubeletHasSufficientMemory",
                 "kubelet has sufficient memory available"},
                now, ConditionStyle::Node);
  set_condition(
      node, {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
      now, ConditionStyle::Node);
  set_condition(
      node,
      {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
      now, ConditionStyle::Node);
  set_condition(node, {"Ready", "True", "KubeletReady", "kubelet is posting ready status"}, now,
                ConditionStyle::Node);
}

Json read_record(const Json& node) {
  auto text = annotation(node, kFaultAppliedAnnotation);
  if (!text) return Json::object();
  Json record = Json::parse(*text, nullptr, false);
  return record.is_object() ? record : Json::object();
}

void play_ready(Json& out, const Json& node, const NodeFaults& faults, Json& record,
                std::chrono::system_clock::time_point now) {
  if (faults.unreachable) {
    for (const char* type : kPressure)
      set_condition(out,
                    {type, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."},
                    now, ConditionStyle::Node);
    set_condition(out,
                  {"Ready", "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."},
                  now, ConditionStyle::Node);
    record["ready"] = "Unknown";
  } else if (faults.not_ready) {
    if (record.value("ready", std::string()) == "Unknown") set_healthy(out, now);
    set_condition(out, {"Ready", "False", "KubeletNotReady", "container runtime is down"}, now,
                  ConditionStyle::Node);
    record["ready"] = "False";
  } else if (record.contains("ready")) {
    // Healed: the kubelet reports healthy again. The record goes once the server shows it, so
    // that a failed status write is retried rather than forgotten.
    if (condition_status(node, "Ready") == kube::ConditionStatus::True &&
        std::all_of(std::begin(kPressure), std::end(kPressure), [&](const char* type) {
          return condition_status(node, type) == kube::ConditionStatus::False;
        })) {
      record.erase("ready");
    } else {
      set_healthy(out, now);
    }
  }
}

void play_isolation(Json& out, const NodeFaults& faults, Json& record) {
  Json& taints = out["spec"]["taints"];
  if (!taints.is_array()) taints = Json::array();
  std::vector<std::string> ours;
  for (const auto& k : record.value("taints", Json::array()))
    if (k.is_string()) ours.push_back(k.get<std::string>());
  auto has_key = [&](const std::string& key) {
    return std::any_of(taints.begin(), taints.end(),
                       [&](const Json& t) { return t.value("key", std::string()) == key; });
  };
  std::vector<std::string> wanted;
  for (const auto& code : faults.isolation_codes)
    wanted.push_back(kIsolationTaintPrefix + code);
  for (const auto& key : wanted) {
    if (has_key(key)) continue;  // ours already, or someone else's: left as it is
    taints.push_back({{"key", key}, {"effect", "NoSchedule"}});
    ours.push_back(key);
  }
  for (auto it = ours.begin(); it != ours.end();) {
    if (std::find(wanted.begin(), wanted.end(), *it) != wanted.end()) {
      ++it;
      continue;
    }
    const std::string key = *it;
    taints.erase(std::remove_if(taints.begin(), taints.end(),
                                [&](const Json& t) {
                                  return t.value("key", std::string()) == key &&
                                         t.value("effect", std::string()) == "NoSchedule";
                                }),
                 taints.end());
    it = ours.erase(it);
  }
  if (taints.empty()) out["spec"].erase("taints");
  if (ours.empty()) {
    record.erase("taints");
  } else {
    record["taints"] = ours;
  }
}

void play_accelerator(Json& out, const Json& node, const NodeFaults& faults, Json& record,
                      std::vector<std::string>* errors) {
  Json recorded = record.value("allocatable", Json::object());
  std::string resource = accelerator_resource(node);
  if (faults.accelerator_loss > 0 && resource.empty() && errors)
    errors->push_back("AcceleratorLoss: the node has no extended resource in its capacity");
  // Allocatable is touched only when something is to be set (nodes without it stay so).
  auto allocatable = [&]() -> Json& {
    Json& a = out["status"]["allocatable"];
    if (!a.is_object()) a = at_path(node, {"status", "capacity"});
    if (!a.is_object()) a = Json::object();
    return a;
  };
  if (faults.accelerator_loss > 0 && !resource.empty()) {
    if (!recorded.contains(resource)) {
      const Json& current = at_path(node, {"status", "allocatable", resource});
      const Json& have =
          current.is_null() ? at_path(node, {"status", "capacity", resource}) : current;
      recorded[resource] = have.is_string() ? have.get<std::string>() : std::string("0");
    }
    const auto original = apimachinery::Quantity::parse(recorded[resource].get<std::string>())
                              .value_or(apimachinery::Quantity{})
                              .value();
    const std::int64_t left = std::max<std::int64_t>(0, original - faults.accelerator_loss);
    allocatable()[resource] = std::to_string(left);
  }
  for (auto it = recorded.begin(); it != recorded.end();) {
    const bool active = faults.accelerator_loss > 0 && it.key() == resource;
    if (active) {
      ++it;
      continue;
    }
    const Json& now_value = at_path(node, {"status", "allocatable", it.key()});
    if (now_value == it.value()) {
      it = recorded.erase(it);  // restored on the server: the record is done
    } else {
      allocatable()[it.key()] = it.value();
      ++it;
    }
  }
  if (recorded.empty()) {
    record.erase("allocatable");
  } else {
    record["allocatable"] = recorded;
  }
}

}  // namespace

std::string accelerator_resource(const Json& node) {
  const Json& capacity = at_path(node, {"status", "capacity"});
  if (!capacity.is_object()) return {};
  for (auto it = capacity.begin(); it != capacity.end(); ++it) {
    if (it.key().find('/') != std::string::npos) return it.key();
  }
  return {};
}

Json apply_faults(const Json& node, std::chrono::system_clock::time_point now,
                  std::vector<std::string>* errors) {
  ParsedFaults parsed = parse_faults(annotation(node, kFaultAnnotation).value_or(""));
  if (errors) *errors = parsed.errors;
  Json record = read_record(node);
  Json out = node;
  if (!out["spec"].is_object()) out["spec"] = Json::object();
  play_ready(out, node, parsed.faults, record, now);
  play_isolation(out, parsed.faults, record);
  play_accelerator(out, node, parsed.faults, record, errors);
  Json& annotations = out["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = Json::object();
  if (record.empty()) {
    annotations.erase(kFaultAppliedAnnotation);
  } else {
    annotations[kFaultAppliedAnnotation] = record.dump();
  }
  if (annotations.empty()) out["metadata"].erase("annotations");
  if (out["spec"].empty() && !node.contains("spec")) out.erase("spec");
  return out;
}

}  // namespace sim
}  // namespace respool::sandbox
