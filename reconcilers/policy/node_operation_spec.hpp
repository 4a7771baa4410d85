#pragma once
// The spec of a NodeOperation (API.md): replace, reset or delete named nodes of one pool. The
// API server checks what the CRD's schema and rules can; the operator checks again here (not
// every API server evaluates CEL) and adds what needs more than the object: the timeout's upper
// bound is N3's 24 hours whatever the schema let through.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/spec.hpp"

namespace respool::policy {

enum class NodeOperationType { Replace, Reset, Delete };
std::string_view to_string(NodeOperationType type);
std::optional<NodeOperationType> parse_node_operation_type(std::string_view text);

struct ResetOptions {
  std::string os;                          // the operating system to install (N7)
  IntOrPercent max_unavailable{1, false};  // nodes reset at once, of spec.nodes (N7)
};

inline constexpr std::chrono::seconds kMaxReplaceTimeout = std::chrono::hours(24);  // N3

struct NodeOperationSpec {
  std::string pool;
  NodeOperationType type = NodeOperationType::Replace;
  std::vector<std::string> nodes;
  std::optional<ResetOptions> reset;                  // Reset only
  std::chrono::seconds timeout = kMaxReplaceTimeout;  // Replace only (N3)
  // Created by automatic remediation (label respool.io/remediation: auto, N12): its Reset may
  // repair the Abnormal node it names (N17).
  bool automatic = false;
  // N18: decided as a real one, touching nothing; it ends Previewed with what it would do.
  bool preview = false;
  // N7: how many of this operation's nodes may be reset at once (floor, at least 1).
  int reset_concurrency() const;
};

// Reads and checks a NodeOperation object's spec: pool, type, nodes (at least one, none twice),
// reset options only for Reset and required there (N7), timeout at most 24h (N3).
std::expected<NodeOperationSpec, std::vector<Violation>> check_node_operation(
    const nlohmann::json& object);

}  // namespace respool::policy
