#include "reconcilers/policy/node_operation_admission.hpp"

#include <algorithm>

#include "reconcilers/policy/time.hpp"

namespace respool::policy {

namespace {

// N17: an automatic Reset may repair an Abnormal node, unless the node is not Ready or
// unreachable (F2): nothing would run its reset.
bool repairable_by_reset(const NodeClass& node) {
  if (node.state != NodeState::Abnormal) return false;
  return std::find(node.codes.begin(), node.codes.end(), kNotReadyCode) == node.codes.end();
}

// Why one node cannot take part at all; nullopt when it can.
struct Refusal {
  std::string reason;
  std::string message;
};

class Round {
 public:
  Round(const AdmissionInput& in, Ledger ledger) : in_(in) {
    result_.ledger = std::move(ledger);
    for (const PoolNode& n : in.nodes)
      nodes_[n.name] = &n;
    for (const ActiveNode& a : result_.ledger.active)
      claimed_[a.node] = a.operation;
  }

  void take(const OpenOperation& op) {
    if (!op.spec) {
      reject(op, "InvalidSpec", join(op.invalid));
      return;
    }
    const NodeOperationSpec& spec = *op.spec;
    if (!in_.pool_exists) {
      reject(op, "PoolNotFound", "pool " + spec.pool + " does not exist");
      return;
    }
    // Nodes still to start, in spec order.
    std::vector<std::string> todo;
    for (const std::string& node : spec.nodes) {
      if (op.ended.contains(node)) continue;
      if (auto owner = claimed_.find(node); owner != claimed_.end() && owner->second == op.name)
        continue;  // already running
      todo.push_back(node);
    }
    // Whether each can take part; before anything started, any refusal rejects the operation.
    std::vector<std::string> eligible;
    for (const std::string& node : todo) {
      if (auto refusal = refuse(op, spec, node)) {
        if (!op.started && !started_any(op)) {
          reject(op, refusal->reason, refusal->message);
          return;
        }
        result_.failed[op.name][node] = {refusal->reason, refusal->message};
        continue;
      }
      eligible.push_back(node);
    }
    for (const std::string& node : todo)
      claimed_.try_emplace(node, op.name);  // later operations may not take them
    if (spec.type == NodeOperationType::Delete && !eligible.empty()) {
      const int deleting = result_.ledger.active_of(NodeOperationType::Delete);
      if (int(in_.nodes.size()) - deleting - int(eligible.size()) < 1) {
        Refusal last{"LastNode", "N8: deleting " + list(eligible) + " would leave pool " +
                                     spec.pool +
                                     " without nodes; the last node of a pool "
                                     "cannot be deleted"};
        if (!op.started && !started_any(op)) {
          reject(op, last.reason, last.message);
        } else {
          for (const std::string& node : eligible)
            result_.failed[op.name][node] = {last.reason, last.message};
        }
        return;
      }
    }
    for (const std::string& node : eligible) {
      if (auto wait = must_wait(op, spec)) {
        result_.waiting.try_emplace(op.name, *wait);
        break;  // the rest of this operation waits its turn too
      }
      start(op, spec, node);
    }
  }

  Admission finish() { return std::move(result_); }

 private:
  static std::string list(const std::vector<std::string>& nodes) {
    std::string out;
    for (const auto& n : nodes)
      out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  bool started_any(const OpenOperation& op) const {
    return std::any_of(result_.started.begin(), result_.started.end(),
                       [&](const ActiveNode& a) { return a.operation == op.name; }) ||
           result_.ledger.active_of(op.name) > 0;
  }

  void reject(const OpenOperation& op, std::string reason, std::string message) {
    result_.rejected[op.name] = {std::move(reason), std::move(message)};
  }

  std::optional<Refusal> refuse(const OpenOperation& op, const NodeOperationSpec& spec,
                                const std::string& node) const {
    if (auto owner = claimed_.find(node); owner != claimed_.end() && owner->second != op.name) {
      return Refusal{"NodeInOperation", "node " + node + " is already in NodeOperation " +
                                            owner->second + " (N5: one operation per node)"};
    }
    auto it = nodes_.find(node);
    if (it == nodes_.end()) {
      return Refusal{"NotInPool", "node " + node + " is not in pool " + spec.pool};
    }
    // A node whose driver is being upgraded (D4) is Available again once it is done: the reset
    // waits for the upgrade (N6, must_wait), it is not refused.
    if (spec.type == NodeOperationType::Reset && it->second->state.state != NodeState::Available &&
        it->second->state.state != NodeState::Upgrading &&
        !(spec.automatic && repairable_by_reset(it->second->state))) {
      return Refusal{"NodeNotAvailable", "N5: only Available nodes can be reset; node " + node +
                                             " is " +
                                             std::string(to_string(it->second->state.state))};
    }
    return std::nullopt;
  }

  std::optional<Verdict> must_wait(const OpenOperation& op, const NodeOperationSpec& spec) const {
    const Ledger& l = result_.ledger;
    switch (spec.type) {
      case NodeOperationType::Replace: {
        if (int n = l.active_of(NodeOperationType::Reset); n > 0) {
          return Verdict{"PoolResetting", "N4: no replacement starts while a node of pool " +
                                              spec.pool + " is resetting (" + std::to_string(n) +
                                              " now)"};
        }
        const Budget b = budget(l, in_.pool_size, in_.limits, in_.now);
        if (b.concurrent_limit_reached()) {
          return Verdict{"ReplaceLimitConcurrent",
                         "N2: " + std::to_string(b.replacing) + " of at most " +
                             std::to_string(b.concurrent_replacement_limit) + " nodes of pool " +
                             spec.pool + " are being replaced"};
        }
        if (b.day_limit_reached()) {
          return Verdict{"ReplaceLimitPerDay",
                         "N1: " + std::to_string(b.replacements_in_window) + " of at most " +
                             std::to_string(b.replacement_limit) +
                             " replacements in the last 24 hours used in pool " + spec.pool +
                             "; the next can start at " + format_time(*b.next_replacement_time)};
        }
        return std::nullopt;
      }
      case NodeOperationType::Reset: {
        if (int n = l.active_of(NodeOperationType::Replace); n > 0) {
          return Verdict{"PoolReplacing", "N6: no reset starts while a node of pool " + spec.pool +
                                              " is being replaced (" + std::to_string(n) + " now)"};
        }
        const bool node_upgrading =
            std::any_of(spec.nodes.begin(), spec.nodes.end(), [&](const std::string& node) {
              auto it = nodes_.find(node);
              return it != nodes_.end() && it->second->state.state == NodeState::Upgrading;
            });
        if (in_.driver_upgrading || node_upgrading) {
          return Verdict{"DriverUpgrading", "N6: no reset starts while the driver of pool " +
                                                spec.pool + " is being upgraded"};
        }
        const int limit = spec.reset_concurrency();
        if (l.active_of(op.name) >= limit) {
          return Verdict{"ResetConcurrency", "N7: at most " + std::to_string(limit) +
                                                 " of its nodes " + (limit == 1 ? "is" : "are") +
                                                 " reset at once"};
        }
        return std::nullopt;
      }
      case NodeOperationType::Delete:
        return std::nullopt;
    }
    return std::nullopt;
  }

  void start(const OpenOperation& op, const NodeOperationSpec& spec, const std::string& node) {
    ActiveNode a{op.name, spec.type, node, in_.now};
    result_.ledger.active.push_back(a);
    if (spec.type == NodeOperationType::Replace)
      result_.ledger.replacements.push_back({op.name, node, in_.now});
    result_.started.push_back(std::move(a));
  }

  const AdmissionInput& in_;
  Admission result_;
  std::map<std::string, const PoolNode*, std::less<>> nodes_;
  std::map<std::string, std::string, std::less<>> claimed_;  // node → operation
};

}  // namespace

Admission admit(const AdmissionInput& input, Ledger ledger, std::vector<OpenOperation> operations) {
  std::sort(operations.begin(), operations.end(),
            [](const OpenOperation& a, const OpenOperation& b) {
              return std::tie(a.created, a.name) < std::tie(b.created, b.name);
            });
  ledger.prune(input.now);
  Round round(input, std::move(ledger));
  for (const OpenOperation& op : operations)
    round.take(op);
  return round.finish();
}

}  // namespace respool::policy
