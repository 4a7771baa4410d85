#include "reconcilers/policy/driver_upgrade_status.hpp"

#include "reconcilers/policy/keys.hpp"
#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

using nlohmann::json;

std::string annotation_or_empty(const NodeView& node, std::string_view key) {
  auto it = node.annotations.find(key);
  return it == node.annotations.end() ? std::string() : it->second;
}

// The version every node of a type runs, once they agree (and run one).
struct Agreement {
  std::optional<std::string> version;
  bool mixed = false;
  void see(const std::string& v) {
    if (v.empty() || mixed) {
      mixed = true;
      version.reset();
      return;
    }
    if (!version) {
      version = v;
    } else if (*version != v) {
      mixed = true;
      version.reset();
    }
  }
};

std::string counts_words(const UpgradeCounts& c) {
  return std::to_string(c.upgraded) + " upgraded, " + std::to_string(c.upgrading) + " upgrading, " +
         std::to_string(c.pending) + " pending, " + std::to_string(c.failed) + " failed";
}

}  // namespace

std::string targets_words(const DriverProgress& p) {
  std::string out;
  if (p.gpu_target) out = "GPU driver " + *p.gpu_target;
  if (p.npu_target) out += (out.empty() ? "" : " and ") + ("NPU driver " + *p.npu_target);
  return out.empty() ? "no driver" : out;
}

UpgradeNode read_upgrade_node(const NodeView& node, std::string target) {
  UpgradeNode n;
  n.name = node.name;
  n.target = std::move(target);
  if (const std::string* running = node.label(kDriverVersionLabel)) n.running = *running;
  if (const std::string* state = node.label(kDriverUpgradeStateLabel))
    n.state = parse_upgrade_state(*state);
  n.since = parse_time(annotation_or_empty(node, kDriverUpgradeSinceAnnotation));
  const std::string attempts = annotation_or_empty(node, kDriverUpgradeAttemptsAnnotation);
  for (char c : attempts) {
    if (c < '0' || c > '9' || n.attempts > 1000) {
      n.attempts = 0;
      break;
    }
    n.attempts = n.attempts * 10 + (c - '0');
  }
  const std::string* skip = node.label(kDriverUpgradeSkipLabel);
  n.skip = skip && *skip == "true";
  return n;
}

UpgradedNode read_upgraded_node(const NodeView& node, std::string target, AcceleratorType type) {
  return {read_upgrade_node(node, std::move(target)), type,
          annotation_or_empty(node, kDriverUpgradeFailureAnnotation)};
}

DriverProgress driver_progress(std::span<const UpgradedNode> nodes,
                               const std::optional<std::string>& gpu_target,
                               const std::optional<std::string>& npu_target) {
  DriverProgress p;
  p.gpu_target = gpu_target;
  p.npu_target = npu_target;
  Agreement gpu, npu;
  for (const UpgradedNode& u : nodes) {
    const UpgradeNode& n = u.node;
    (u.type == AcceleratorType::NPU ? npu : gpu).see(n.running);
    if (n.target.empty()) continue;
    if (in_flight(n.state)) {
      ++p.counts.upgrading;
      p.upgrading = true;
    } else if (n.state == UpgradeState::Failed) {
      ++p.counts.failed;
      const auto colon = u.failure.find(": ");
      p.failed.push_back({n.name, u.failure.substr(0, colon),
                          colon == std::string::npos ? "" : u.failure.substr(colon + 2)});
    } else if (n.state == UpgradeState::Required) {
      ++p.counts.pending;
      p.upgrading = true;
    } else if (n.skip || n.running == n.target) {
      if (n.running == n.target) ++p.counts.upgraded;
    } else {
      ++p.counts.pending;
    }
  }
  p.gpu_version = gpu.version;
  p.npu_version = npu.version;
  return p;
}

json driver_status_json(const DriverProgress& p) {
  json out = json::object();
  if (p.gpu_version) out["gpuVersion"] = *p.gpu_version;
  if (p.npu_version) out["npuVersion"] = *p.npu_version;
  json target = json::object();
  if (p.gpu_target) target["gpuVersion"] = *p.gpu_target;
  if (p.npu_target) target["npuVersion"] = *p.npu_target;
  out["target"] = target;
  out["nodes"] = {{"upgraded", p.counts.upgraded},
                  {"upgrading", p.counts.upgrading},
                  {"pending", p.counts.pending},
                  {"failed", p.counts.failed}};
  json failed = json::array();
  for (const FailedUpgrade& f : p.failed)
    failed.push_back({{"name", f.name}, {"reason", f.reason}, {"message", f.message}});
  out["failedNodes"] = failed;
  return out;
}

std::optional<DriverBlock> driver_block(const ResourcePoolSpec& spec, std::string_view phase) {
  if (auto v = driver_upgrade_violation(spec))
    return DriverBlock{"NodeBindingRequired", v->message + " (P13)"};
  if (phase != "Running" && phase != "Upgrading") {
    return DriverBlock{"PoolNotRunning",
                       "the pool is " +
                           (phase.empty() ? std::string("not created yet") : std::string(phase)) +
                           "; a driver upgrade starts only on a Running pool (D3)"};
  }
  return std::nullopt;
}

bool pool_driver_upgrading(const nlohmann::json& pool_status) {
  if (pool_status.value("phase", "") == "Upgrading") return true;
  for (const auto& c : pool_status.value("conditions", nlohmann::json::array()))
    if (c.value("type", "") == "DriverUpgrading" && c.value("status", "") == "True") return true;
  return false;
}

Condition driver_condition(const DriverProgress& p, const std::optional<DriverBlock>& blocked,
                           const std::string& settings_words) {
  const std::string target = targets_words(p);
  if (p.upgrading) {
    return {"DriverUpgrading", "True", "Upgrading",
            "upgrading to " + target + " (" + settings_words + "): " + counts_words(p.counts)};
  }
  if (p.counts.pending > 0 && blocked) {
    return {"DriverUpgrading", "False", blocked->reason,
            blocked->message + "; " + std::to_string(p.counts.pending) + " of the nodes wait for " +
                target};
  }
  if (p.counts.failed > 0) {
    std::string names;
    for (const FailedUpgrade& f : p.failed)
      names += (names.empty() ? "" : ", ") + f.name + " (" + f.reason + ")";
    return {"DriverUpgrading", "False", "UpgradeFailed",
            "the upgrade to " + target + " failed on " + names + "; " + counts_words(p.counts)};
  }
  if (p.counts.pending > 0) {
    return {"DriverUpgrading", "False", "Pending",
            std::to_string(p.counts.pending) + " of the nodes wait for " + target};
  }
  return {"DriverUpgrading", "False", "UpToDate", "every node runs the " + target};
}

}  // namespace respool::policy
