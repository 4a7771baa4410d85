#include "reconcilers/policy/node_state.hpp"

#include <algorithm>
#include <array>

#include "reconcilers/policy/keys.hpp"

namespace respool::policy {

namespace {

constexpr std::array kIsolationCodes{
    IsolationCode{"A050101", "GPU memory",
                  "ECC error (pending page blacklist, multi-bit register file > 0; Ampere: "
                  "uncorrectable SRAM > 4, remapping failure, Xid 95)",
                  false},
    IsolationCode{"A050102", "GPU", "nvidia-smi -a output contains ERR (power supply, fan)", false},
    IsolationCode{"A050103", "GPU", "nvidia-smi times out, exits non-zero or is missing", false},
    IsolationCode{"A050104", "GPU memory", "retired pages, single plus double bit, > 64", false},
    IsolationCode{"A050148", "GPU", "infoROM is corrupted", false},
    IsolationCode{"A050109", "GPU", "other GPU error", false},
    IsolationCode{"A050147", "IB link", "the IB NIC is not active (ibstat)", false},
    IsolationCode{"A050121", "NPU", "driver exception reported by DCMI", false},
    IsolationCode{"A050122", "NPU", "device abnormal (DCMI major or urgent alarm)", false},
    IsolationCode{"A050123", "NPU link", "DCMI network abnormal", false},
    IsolationCode{"A050129", "NPU", "other NPU error", false},
    IsolationCode{"A050149", "NPU link", "hccn link down more than 5 times in 24 hours", false},
    IsolationCode{"A050951", "NPU memory", "HBM double-bit isolated pages >= 64", false},
    IsolationCode{"A050146", "runtime", "NTP (ntpd or chronyd) abnormal", false},
    IsolationCode{"A050202", "runtime", "node not ready", false},
    IsolationCode{"A050203", "runtime", "fewer healthy accelerators than the capacity", false},
    IsolationCode{"A050206", "runtime", "kubelet directory read-only", false},
    IsolationCode{"A050801", "node O&M", "resource reserved: standby node", true},
    IsolationCode{"A050802", "node O&M", "unknown taint", false},
    IsolationCode{"A200001", "driver upgrade", "GPU driver being upgraded", true},
    IsolationCode{"A200002", "driver upgrade", "NPU driver being upgraded", true},
    IsolationCode{"A200008", "admission", "admission checks in progress", true},
    IsolationCode{"A050933", "fault tolerance",
                  "the failover service on the node is being migrated", false},
    IsolationCode{"A050931", "pre-check", "GPU error found by the pre-check container", false},
    IsolationCode{"A050932", "pre-check", "IB error found by the pre-check container", false},
};

bool has(const std::vector<std::string>& codes, std::string_view code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// Codes of isolation taints that are faults (unknown codes included).
std::vector<std::string> fault_codes(const std::vector<std::string>& codes) {
  std::vector<std::string> out;
  for (const std::string& code : codes) {
    const IsolationCode* known = find_isolation_code(code);
    if (!known || !known->operational) out.push_back(code);
  }
  return out;
}

bool unreachable_or_not_ready(const NodeView& node) {
  return node.has_taint(kUnreachableTaint) || node.has_taint(kNotReadyTaint);
}

bool short_of_accelerators(const NodeView& node, const Flavor* flavor) {
  return flavor && flavor->accelerator.type != AcceleratorType::None &&
         node.allocatable_of(flavor->accelerator.resource) < flavor->accelerator.count;
}

std::string zone_of(const NodeView& node, const Catalog& catalog) {
  const std::string* zone = node.label(catalog.zone_label);
  return zone ? *zone : "";
}

}  // namespace

std::string_view to_string(NodeState state) {
  switch (state) {
    case NodeState::Available:
      return "Available";
    case NodeState::Creating:
      return "Creating";
    case NodeState::Abnormal:
      return "Abnormal";
    case NodeState::Upgrading:
      return "Upgrading";
    case NodeState::Reserved:
      return "Reserved";
    case NodeState::Resetting:
      return "Resetting";
    case NodeState::Deleting:
      return "Deleting";
  }
  return "";
}

std::span<const IsolationCode> isolation_codes() {
  return kIsolationCodes;
}

const IsolationCode* find_isolation_code(std::string_view code) {
  for (const IsolationCode& c : kIsolationCodes) {
    if (c.code == code) return &c;
  }
  return nullptr;
}

std::string isolation_taint_key(std::string_view code) {
  return std::string(kIsolationTaintPrefix) + std::string(code);
}

std::vector<std::string> isolation_codes_on(const NodeView& node) {
  std::vector<std::string> codes;
  for (const Taint& t : node.taints) {
    if (t.key.starts_with(kIsolationTaintPrefix) && t.key.size() > kIsolationTaintPrefix.size()) {
      codes.push_back(t.key.substr(kIsolationTaintPrefix.size()));
    }
  }
  return codes;
}

NodeClass classify_node(const NodeView& node, const Flavor* flavor) {
  if (node.deleting || node.has_taint(kReleasingTaintKey)) return {NodeState::Deleting, {}};
  if (node.has_taint(kResettingTaintKey)) return {NodeState::Resetting, {}};
  const std::vector<std::string> codes = isolation_codes_on(node);
  std::vector<std::string> faults = fault_codes(codes);
  const bool admitting = has(codes, kAdmissionCode);
  if (!admitting) {
    bool not_ready = unreachable_or_not_ready(node) || node.ready != true;
    if (not_ready && !has(faults, kNotReadyCode)) faults.emplace_back(kNotReadyCode);
    // A driver upgrade takes the accelerators away for a while: expected, not F5.
    const bool upgrading = has(codes, kGpuUpgradeCode) || has(codes, kNpuUpgradeCode);
    if (!upgrading && short_of_accelerators(node, flavor) && !has(faults, kFewerAcceleratorsCode)) {
      faults.emplace_back(kFewerAcceleratorsCode);
    }
  }
  // A driver that failed its upgrade leaves the node cordoned and unusable: abnormal, with the
  // cause (the pool says Degraded naming it, issue 14), though no isolation code says so.
  if (const std::string* upgrade = node.label(kDriverUpgradeStateLabel);
      upgrade && *upgrade == "upgrade-failed") {
    auto cause = node.annotations.find(kDriverUpgradeFailureAnnotation);
    std::string why = "driver upgrade failed";
    if (cause != node.annotations.end())
      why += ": " + cause->second.substr(0, cause->second.find(':'));
    faults.push_back(std::move(why));
  }
  if (!faults.empty()) return {NodeState::Abnormal, std::move(faults)};
  if (admitting) return {NodeState::Creating, {std::string(kAdmissionCode)}};
  for (std::string_view code : {kGpuUpgradeCode, kNpuUpgradeCode}) {
    if (has(codes, code)) return {NodeState::Upgrading, {std::string(code)}};
  }
  if (has(codes, kReservedCode)) return {NodeState::Reserved, {std::string(kReservedCode)}};
  return {NodeState::Available, {}};
}

bool admission_complete(const NodeView& node, const Flavor* flavor) {
  return node.ready == true && !unreachable_or_not_ready(node) &&
         fault_codes(isolation_codes_on(node)).empty() && !short_of_accelerators(node, flavor);
}

bool is_free_node(const NodeView& node, const Catalog& catalog) {
  return free_node(node, catalog).has_value();
}

std::optional<FreeNode> free_node(const NodeView& node, const Catalog& catalog) {
  const std::string* flavor_label = node.label(catalog.flavor_label);
  const Flavor* flavor = flavor_label ? catalog.flavor_by_label(*flavor_label) : nullptr;
  if (!flavor || node.label(kPoolLabel) || node.label(kRetiredKey) || node.has_taint(kRetiredKey) ||
      node.has_taint(kPoolTaintKey) || node.deleting || node.unschedulable || node.ready != true ||
      unreachable_or_not_ready(node) || !isolation_codes_on(node).empty()) {
    return std::nullopt;
  }
  return FreeNode{node.name, flavor->name, zone_of(node, catalog), node.resource_version};
}

PoolNode pool_node(const NodeView& node, const Catalog& catalog, int running_jobs) {
  const std::string* flavor_label = node.label(catalog.flavor_label);
  const Flavor* flavor = flavor_label ? catalog.flavor_by_label(*flavor_label) : nullptr;
  PoolNode out{node.name, flavor ? flavor->name : "", zone_of(node, catalog),
               classify_node(node, flavor), running_jobs};
  auto annotation = [&node](std::string_view key) -> const std::string* {
    auto it = node.annotations.find(key);
    return it == node.annotations.end() ? nullptr : &it->second;
  };
  if (annotation(kNodeOperationAnnotation)) {
    if (const std::string* type = annotation(kNodeOperationTypeAnnotation))
      out.operation = parse_node_operation_type(*type);
  }
  if (const std::string* replaced = annotation(kReplacementForAnnotation))
    out.replacement_for = *replaced;
  out.releasing = !node.deleting && node.has_taint(kReleasingTaintKey);
  // Written by the node-health controller (node_health.hpp's kHealthStaleAnnotation).
  if (const std::string* stale = annotation("respool.io/health-stale")) out.stale_findings = *stale;
  return out;
}

}  // namespace respool::policy
