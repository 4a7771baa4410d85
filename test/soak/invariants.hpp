#pragma once
// What must hold at every moment of the soak, checked on snapshots of the cluster as the soak's
// own watches see it. The limits are computed here from the rules' words (RULES.md), never with
// respool's policy functions: an off-by-one there must show here.
//   N1  replacements started in any 24 hours ≤ max(1, ⌊20% × the pool's desired nodes⌋)
//   N2  nodes being replaced at once ≤ max(1, ⌊5% × desired⌋)
//   N7  a reset's nodes at once ≤ its maxUnavailable of its nodes (rounded down, at least 1)
//   D2  driver upgrades in flight ≤ ⌈maxUnavailable × desired⌉ (at least 1), when rolling
//   claim   a retired node never joins a pool (the other half, from one pool to another only
//           through free, is NodeHistory's)
//   record  every taint and cordon of respool's has its record on the node (the pool label,
//           the health-taints annotation, the NodeOperation, the upgrade state, ...), within a
//           grace for the steps between two writes; at the end, with none
// A limit counts against the largest desired size the pool had in the last `resize_slack`: a
// start admitted just before a scale-in is not the new size's breach.

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::soak {

using Json = nlohmann::json;
using Clock = std::chrono::system_clock;

struct Breach {
  std::string
      rule;  // "N1", "N2", "N7", "D2", "claim", "record", "leader", "ended", "audit", "cache"
  std::string detail;
};

struct Snapshot {
  std::vector<Json> nodes;
  std::vector<Json> pools;
  std::vector<Json> operations;  // NodeOperations
  Clock::time_point now;
};

struct Shares {
  double per_day = 0.20;     // N1
  double concurrent = 0.05;  // N2
};

// max(1, ⌊share × total⌋): "cannot exceed" limits (N1, N2, N7).
int rounded_down_limit(double share, int total);
// max(1, ⌈share × total⌉): a driver-upgrade batch (D2).
int rounded_up_batch(double share, int total);
// An IntOrPercent value of `total` ("25%" or 3); `up` rounds a percentage up, else down.
int int_or_percent(const Json& value, int total, bool up);
// The pool's desired nodes: the sum of its resources' counts (or their zones').
int desired_nodes(const Json& pool);

class Invariants {
 public:
  explicit Invariants(Shares shares, std::chrono::seconds grace = std::chrono::seconds(60),
                      std::chrono::seconds resize_slack = std::chrono::seconds(15))
      : shares_(shares), grace_(grace), resize_slack_(resize_slack) {}
  // The breaches new in this snapshot (each is reported once).
  std::vector<Breach> check(const Snapshot& s);
  // The end: every mark of respool's explained now, no node of a pool that is gone, no node in
  // an operation that is gone.
  std::vector<Breach> check_final(const Snapshot& s) const;

 private:
  void replacement_limits(const Json& pool, const Snapshot& s, std::vector<Breach>& out);
  void reset_limits(const Snapshot& s, std::vector<Breach>& out);
  void upgrade_batches(const Snapshot& s, std::vector<Breach>& out);
  void claims(const Snapshot& s, std::vector<Breach>& out);
  void records(const Snapshot& s, std::vector<Breach>& out);
  int largest_recent_size(const std::string& pool, int now_size, Clock::time_point now);

  Shares shares_;
  std::chrono::seconds grace_;
  std::chrono::seconds resize_slack_;
  std::map<std::string, std::set<std::string>> active_replacements_;         // pool → "op/node"
  std::map<std::string, std::map<std::string, Clock::time_point>> started_;  // pool uid → N1 tally
  std::map<std::string, std::set<std::string>> active_resets_;               // operation → nodes
  std::map<std::string, std::set<std::string>> in_flight_;  // pool → upgrading nodes
  std::map<std::string, std::vector<std::pair<Clock::time_point, int>>> sizes_;  // pool → seen
  std::map<std::string, Clock::time_point> unexplained_since_;                   // "node: mark"
  std::set<std::string> reported_;
};

// The marks of respool's on a node that nothing on it explains ("taint respool.io/resetting
// without a Reset NodeOperation"). `operations` are the NodeOperations' names that exist.
std::vector<std::string> unexplained_marks(const Json& node,
                                           const std::set<std::string>& operations);

}  // namespace respool::soak
