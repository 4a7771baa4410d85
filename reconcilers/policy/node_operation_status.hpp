#pragma once
// A NodeOperation's status (API.md): its phase and why, each node's phase with the steps done
// to it (each with its time), the replacement node, the job pods it interrupted, conditions.
//
// Phase of the operation, from its nodes:
//   Rejected   it can never succeed (decided before any node started)
//   Pending    no node has started
//   Running    some node has started and not every node has ended
//   Succeeded  every node Succeeded
//   Failed     every node ended and at least one Failed
//   Previewed  a preview (N18): decided, nothing done; `preview` says what it would do
// Conditions (kstatus): Ready True once Succeeded; Progressing True while Pending or Running.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/conditions.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

enum class OperationPhase { Pending, Running, Succeeded, Failed, Rejected, Previewed };
std::string_view to_string(OperationPhase phase);
std::optional<OperationPhase> parse_operation_phase(std::string_view text);
bool is_terminal(OperationPhase phase);

enum class NodePhase { Pending, Running, Succeeded, Failed };
std::string_view to_string(NodePhase phase);
bool is_terminal(NodePhase phase);

// What was done to a node: Cordoned, Drained, ReplacementClaimed, ReplacementAdmitted, Retired,
// ResetStarted, ResetCompleted, Readmitted, Uncordoned, Released, Failed.
struct StepRecord {
  std::string step;
  TimePoint time{};
  std::string message;
  bool operator==(const StepRecord&) const = default;
};

struct NodeProgress {
  std::string name{};
  NodePhase phase = NodePhase::Pending;
  std::string reason{};  // why it failed or waits (NoIdleNode, ResetFailed, DrainBlocked, ...)
  std::string message{};
  std::string replacement{};  // Replace: the node that took its place
  std::optional<TimePoint> start{};
  std::vector<StepRecord> steps{};
  bool operator==(const NodeProgress&) const = default;

  bool has_step(std::string_view step) const;
  // Appends `step` unless it is already there; true when it did.
  bool add_step(std::string_view step, TimePoint now, std::string message = {});
};

struct OperationStatus {
  std::int64_t observed_generation = 0;
  OperationPhase phase = OperationPhase::Pending;
  std::string reason;
  std::string message;
  std::optional<TimePoint> start;
  std::optional<TimePoint> completion;
  std::vector<NodeProgress> nodes;
  std::vector<std::string> interrupted_jobs;  // "namespace/pod"
  std::vector<Condition> conditions;
  nlohmann::json preview;  // null, or what a preview would do (node_operation_preview.hpp)
  bool operator==(const OperationStatus&) const = default;

  NodeProgress* node(std::string_view name);
  const NodeProgress* node(std::string_view name) const;
};

// The operation's phase from its nodes' (Rejected and Previewed are set by the caller, never
// derived).
OperationPhase phase_from_nodes(const std::vector<NodeProgress>& nodes);
// Sets phase (unless Rejected or Previewed), start and completion times and the conditions.
void settle_status(OperationStatus& status, TimePoint now);

nlohmann::json to_json(const OperationStatus& status);
// Lenient: what cannot be read is left at its default.
OperationStatus operation_status_from_json(const nlohmann::json& status);

}  // namespace respool::policy
