#pragma once
// A pool's status, derived from what was observed and planned: phase, conditions, node counts
// overall and per flavor. Plug-ins, records and driver progress are computed elsewhere and
// carried here so that the status is written in one piece.
//
// Phase:
//   Deleting   the pool is being deleted (P14)
//   Failed     the spec is invalid and the pool was never built
//   Creating   until creation is over: every desired node claimed and through admission
//              (no queuing, none creating); then Running with at least one available node (P7),
//              else Abnormal
//   Abnormal   a created pool without any available node
//   Upgrading  a created pool whose driver is being upgraded (nodes marked or in flight, D1-D4)
//   Scaling    a created pool with nodes to claim, in admission, waiting or being released
//   Running    otherwise
// Conditions (observedGeneration = metadata.generation; lastTransitionTime moves only when the
// status does):
//   Ready        True (Available) while work can be placed: a created pool with an available
//                node. False: Deleting, InvalidSpec, NetworkNotReady, InsufficientFreeNodes,
//                Creating, NoAvailableNodes.
//   Progressing  True while nodes are claimed, admitted or released (Creating, Scaling,
//                Deleting, or the reason that also holds something back); False when waiting
//                on something (InvalidSpec, NetworkNotReady, NotRunning, ScaleInBlocked,
//                InsufficientFreeNodes) or when done (UpToDate).
//   Degraded     True (AbnormalNodes) while some node is abnormal, naming them and their codes;
//                False (NoAbnormalNodes) otherwise. Operational codes never count (F4).
//   RemediationPaused  with spec.remediation only: True (TooManyUnhealthy) while more nodes are
//                abnormal than maxUnhealthy (N14), else False (Active, InvalidRemediation).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/conditions.hpp"
#include "reconcilers/policy/plugins.hpp"
#include "reconcilers/policy/pool_plan.hpp"
#include "reconcilers/policy/records.hpp"
#include "reconcilers/policy/spec.hpp"

namespace respool::policy {

enum class PoolPhase { Creating, Running, Scaling, Upgrading, Abnormal, Deleting, Failed };
std::string_view to_string(PoolPhase phase);
std::optional<PoolPhase> parse_pool_phase(std::string_view text);

// Whether a pool in `previous` phase (as its status says; nullopt for a new pool) has been
// created, i.e. its counts can change only by resizing.
bool pool_created(std::optional<PoolPhase> previous);
// P10: resizing only a Running pool (Scaling continues a resize); creation is not a resize.
bool resize_allowed(std::optional<PoolPhase> previous);

struct NodeCounts {
  int total = 0;  // nodes in the pool, whatever their state
  int available = 0;
  int abnormal = 0;
  int creating = 0;
  int queuing = 0;  // desired nodes not claimed yet
  int deleting = 0;
  int upgrading = 0;  // addition: driver upgrade in progress (A200001/2)
  int reserved = 0;   // addition: standby nodes (A050801)
  int resetting = 0;  // addition: being reset by a NodeOperation (N5)
  bool operator==(const NodeCounts&) const = default;
};

struct FlavorCounts {
  std::string flavor;
  int desired = 0;
  NodeCounts counts;
  bool operator==(const FlavorCounts&) const = default;
};

struct PoolObservation {
  std::int64_t generation = 0;
  std::optional<PoolPhase> previous_phase;
  bool deleting = false;
  std::vector<Violation> invalid;              // non-empty: InvalidSpec
  std::optional<std::string> network_problem;  // set: NetworkNotReady, saying why
  std::span<const PoolNode> nodes;
  const PoolPlan* plan = nullptr;  // null when none was made (invalid spec, deletion)
  bool driver_upgrading = false;
  std::optional<Condition> driver_condition;  // DriverUpgrading, when the spec sets a driver
  // RemediationPaused, while the pool has remediation (N14); without it the condition goes.
  std::optional<Condition> remediation_condition;
  std::optional<std::string> scale_in_blocked;  // why evictions cannot go on (ScaleInBlocked)
};

struct PoolStatus {
  std::int64_t observed_generation = 0;
  PoolPhase phase = PoolPhase::Creating;
  std::vector<Condition> conditions;
  NodeCounts nodes;
  std::vector<FlavorCounts> resources;
  std::vector<PluginStatus> plugins;
  std::vector<Record> records;
  nlohmann::json driver;  // the driver upgrade's status; null: omitted
  // The spec's tags this status has seen (SetTags records compare against it); nullopt: omitted.
  std::optional<std::map<std::string, std::string>> tags;
};

// Phase, conditions and counts. The plan's claims count as creating nodes: the reconciler makes
// them before it writes the status. `previous_conditions` are the status's current ones (for
// lastTransitionTime).
PoolStatus derive_pool_status(const PoolObservation& observation,
                              const std::vector<Condition>& previous_conditions, TimePoint now);

nlohmann::json to_json(const PoolStatus& status);

}  // namespace respool::policy
