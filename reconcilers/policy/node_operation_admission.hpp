#pragma once
// Which nodes of which NodeOperations start now, in one place per pool (N1–N8).
//
// One pure function of the pool's ledger, its nodes and its open operations decides, operation
// by operation in the order they were created (then by name), node by node in spec order:
//   rejected  (only while nothing of the operation has started) an invalid spec (N3, N7), the
//             pool does not exist, a node not in the pool, a node already in another
//             operation, a reset of a node that is not Available (N5), a delete that would
//             take the pool's last node (N8);
//   failed    a node whose turn came but which can no longer take part (it left the pool, or
//             a reset node is not Available any more, N5);
//   waits     Replace: while a pool node is resetting (N4, PoolResetting), at the concurrent
//             limit (N2, ReplaceLimitConcurrent) or at the daily limit (N1, ReplaceLimitPerDay,
//             saying when a slot frees); Reset: while a pool node is being replaced
//             (N6, PoolReplacing) or the pool's driver is being upgraded (N6, DriverUpgrading),
//             and beyond its own concurrency (N7);
//   starts    otherwise: a ledger entry, and for Replace an N1 entry.
// The caller writes the resulting ledger, guarded by the pool's resourceVersion, before it
// touches any node it admits.

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "reconcilers/policy/node_operation_ledger.hpp"
#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::policy {

// An operation that is neither finished nor being deleted.
struct OpenOperation {
  std::string name;
  TimePoint created{};
  std::optional<NodeOperationSpec> spec;  // nullopt: invalid, see `invalid`
  std::vector<Violation> invalid;
  std::set<std::string> ended;  // nodes whose part ended (Succeeded or Failed)
  bool started = false;         // some node started before (its status says so)
};

struct AdmissionInput {
  bool pool_exists = true;
  std::string pool;
  int pool_size = 0;                // the pool's desired nodes (N1, N2 are shares of it)
  std::span<const PoolNode> nodes;  // the pool's nodes now
  bool driver_upgrading = false;    // N6
  ReplacementLimits limits;
  TimePoint now{};
};

struct Verdict {
  std::string reason;
  std::string message;
  bool operator==(const Verdict&) const = default;
};

struct Admission {
  Ledger ledger;                            // the input ledger with this round's starts
  std::vector<ActiveNode> started;          // this round's starts
  std::map<std::string, Verdict> rejected;  // operation → why it can never succeed
  std::map<std::string, Verdict> waiting;   // operation → why (some of) its nodes wait
  std::map<std::string, std::map<std::string, Verdict>> failed;  // operation → node → why
  bool changed() const { return !started.empty(); }
};

// `operations` in any order; they are taken oldest first.
Admission admit(const AdmissionInput& input, Ledger ledger, std::vector<OpenOperation> operations);

}  // namespace respool::policy
