#pragma once
// What state a node is in, seen from its pool (F1–F5), and which nodes are free (N9).
//
// Precedence, first match wins:
//   Deleting   being released by the pool (respool.io/releasing taint) or deleted
//   Resetting  being reset by a NodeOperation (respool.io/resetting taint, N5): it reboots and
//              may be NotReady meanwhile, which is not a fault (F4)
//   Abnormal   a fault isolation code (F1); an admitted node that is not Ready or carries the
//              not-ready/unreachable taint (F2, A050202); an admitted node with fewer
//              allocatable accelerators than its flavor promises (F5, A050203)
//   Creating   under admission (A200008, F3): booting, not yet Ready or not yet reporting its
//              accelerators is part of admission, not a fault
//   Upgrading  A200001 / A200002 (D4)
//   Reserved   A050801, a standby node: neither available nor abnormal (F4)
//   Available  otherwise
// F4: the operational codes (A200008, A200001, A200002, A050801) are never faults.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::policy {

enum class NodeState { Available, Creating, Abnormal, Upgrading, Reserved, Resetting, Deleting };
std::string_view to_string(NodeState state);

// One row of RULES.md's isolation code table (table 2-3 of the source document).
struct IsolationCode {
  std::string_view code;
  std::string_view category;
  std::string_view fault;
  bool operational;  // F4: not a fault
};
std::span<const IsolationCode> isolation_codes();
const IsolationCode* find_isolation_code(std::string_view code);

inline constexpr std::string_view kAdmissionCode = "A200008";
inline constexpr std::string_view kGpuUpgradeCode = "A200001";
inline constexpr std::string_view kNpuUpgradeCode = "A200002";
inline constexpr std::string_view kReservedCode = "A050801";
inline constexpr std::string_view kNotReadyCode = "A050202";
inline constexpr std::string_view kFewerAcceleratorsCode = "A050203";

// "isolation.respool.io/A200008"
std::string isolation_taint_key(std::string_view code);
// The codes of the node's isolation taints, in taint order.
std::vector<std::string> isolation_codes_on(const NodeView& node);

struct NodeClass {
  NodeState state = NodeState::Available;
  // For Abnormal: the fault codes, detected ones included (A050202, A050203); unknown isolation
  // codes count as faults. For the operational states: their code.
  std::vector<std::string> codes;
};

// `flavor` is the node's flavor from the catalog (nullptr when unknown: no accelerator check).
NodeClass classify_node(const NodeView& node, const Flavor* flavor);

// F3: admission is over when the node is Ready, free of the not-ready/unreachable taints and of
// fault codes, and reports the accelerators its flavor promises. The caller then removes A200008.
bool admission_complete(const NodeView& node, const Flavor* flavor);

// N9 and then some: a free node has the flavor label of a catalog flavor, no pool label, no
// respool.io/retired label or taint, and, so that a claim does not take a broken node, is Ready,
// schedulable, not being deleted and free of isolation taints and not-ready/unreachable taints.
bool is_free_node(const NodeView& node, const Catalog& catalog);

// A free node as the planner sees it.
struct FreeNode {
  std::string name;
  std::string flavor;  // catalog flavor name
  std::string zone;    // the zone label's value, "" when absent
  std::string resource_version;
};
std::optional<FreeNode> free_node(const NodeView& node, const Catalog& catalog);

// A pool's node as the planner and the status see it.
struct PoolNode {
  std::string name;
  std::string flavor;  // catalog flavor name ("" when the flavor label matches none)
  std::string zone;
  NodeClass state;
  int running_jobs = 0;
  // The NodeOperation the node is in (respool.io/node-operation-type), if any.
  std::optional<NodeOperationType> operation{};
  std::string replacement_for{};  // the node whose place this one took (respool.io/replacement-for)
  bool releasing = false;         // Deleting by the pool's own release (not a deletionTimestamp)
  // The node agent's conditions whose heartbeats are stale (respool.io/health-stale, H16).
  std::string stale_findings{};
};
PoolNode pool_node(const NodeView& node, const Catalog& catalog, int running_jobs);

}  // namespace respool::policy
