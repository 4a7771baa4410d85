#pragma once
// A pool's node-operation ledger and budget (N1, N2), kept in the pool's status.nodeOperations.
//
// The ledger is what makes the limits exact. A node enters an operation only after the ledger
// entry that admits it is written, with the pool's resourceVersion as the write's guard: a
// decision made from a stale cache, by a second worker, a second operator during a leader
// handover or a restarted one, loses that write (409) and acts on nothing. The ledger holds:
//   active        every node now in an operation (Replace, Reset or Delete), with its operation
//   replacements  every replacement started in the last 24 hours (N1), kept after its
//                 NodeOperation is finished or deleted
// and, derived from it, the figures users see before they ask (API.md): replacing, resetting,
// replacementsInWindow, replacementLimit, concurrentReplacementLimit, nextReplacementTime.
//
// Limits (RULES.md, "Rounding"): max(1, floor(p × total)), total = the pool's desired nodes.
// N1 window: a replacement started exactly 24 hours ago no longer counts.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

inline constexpr std::chrono::hours kReplacementWindow{24};  // N1

// A node in an operation.
struct ActiveNode {
  std::string operation;  // the NodeOperation's name
  NodeOperationType type = NodeOperationType::Replace;
  std::string node;
  TimePoint start{};
  bool operator==(const ActiveNode&) const = default;
};

// A replacement that started (N1 counts it for 24 hours, whatever became of it).
struct ReplacementStart {
  std::string operation;
  std::string node;
  TimePoint start{};
  bool operator==(const ReplacementStart&) const = default;
};

struct Ledger {
  std::vector<ActiveNode> active;
  std::vector<ReplacementStart> replacements;
  bool operator==(const Ledger&) const = default;

  const ActiveNode* find(std::string_view node) const;
  int active_of(NodeOperationType type) const;
  int active_of(std::string_view operation) const;
  // Drops replacements that left the window.
  void prune(TimePoint now);
};

struct Budget {
  int replacing = 0;
  int resetting = 0;
  int deleting = 0;
  int replacements_in_window = 0;
  int replacement_limit = 1;             // N1 for the pool's size
  int concurrent_replacement_limit = 1;  // N2 for the pool's size
  // When the window frees a slot; set only while the N1 limit is reached.
  std::optional<TimePoint> next_replacement_time;
  bool operator==(const Budget&) const = default;

  bool day_limit_reached() const { return replacements_in_window >= replacement_limit; }
  bool concurrent_limit_reached() const { return replacing >= concurrent_replacement_limit; }
};

// True while a replacement started at `start` counts against N1 at `now`.
bool in_replacement_window(TimePoint start, TimePoint now);

Budget budget(const Ledger& ledger, int pool_nodes, const ReplacementLimits& limits, TimePoint now);

// status.nodeOperations: the budget's figures and the ledger.
nlohmann::json to_json(const Budget& budget, const Ledger& ledger);
// Lenient: entries without a node, operation or time are skipped.
Ledger ledger_from_json(const nlohmann::json& node_operations);

}  // namespace respool::policy
