#pragma once
// Automatic remediation of faulty pool nodes (issue 27; rules N10–N16): which fault a node's
// remediation follows, when it starts, how it escalates, when it waits, and when the pool's
// circuit breaker stops it. Decided here, for one pool at a time; the remediation controller
// acts through NodeOperations, so every limit of N1–N8 applies to people's and automatic
// operations together.
//
// What a node's remediation has done so far is kept in the pool's status
// (status.remediation.nodes), so that a restarted operator neither repeats a step nor forgets
// one; the NodeOperations it created are the rest of the record.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconcilers/policy/int_or_percent.hpp"
#include "reconcilers/policy/node_operation_spec.hpp"
#include "reconcilers/policy/spec.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// The families a rule may name instead of codes, from the isolation-code table's categories.
enum class FaultFamily { GPU, NPU, InfiniBand, Runtime };
std::string_view to_string(FaultFamily family);
std::optional<FaultFamily> parse_fault_family(std::string_view text);
// The family of a fault code (nullopt for codes outside the four families and for operational
// codes: A200008, A200001/2 and A050801 are never remediated).
std::optional<FaultFamily> family_of(std::string_view code);

struct RemediationStep {
  NodeOperationType action = NodeOperationType::Reset;      // Reset or Replace
  std::string os;                                           // Reset: the operating system (N7)
  std::chrono::seconds timeout = std::chrono::minutes(45);  // not fixed within it: next step
};

struct RemediationRule {
  std::vector<std::string> codes;
  std::vector<FaultFamily> families;
  std::chrono::seconds after = std::chrono::minutes(10);  // N11: how long the fault must last
  std::vector<RemediationStep> steps;
  bool matches(std::string_view code) const;
};

inline constexpr std::chrono::seconds kMinRemediationAfter{30};  // one agent check period
inline constexpr IntOrPercent kDefaultMaxUnhealthy{20, true};

struct RemediationSpec {
  std::vector<RemediationRule> rules;
  IntOrPercent max_unhealthy = kDefaultMaxUnhealthy;  // N14
  bool dry_run = false;                               // N16: previews instead of operations
};

// spec.remediation of a pool; errors name the field and the rule (unknown codes or families,
// no steps, a Replace with an os, a Reset without one, `after` under 30 s, maxUnhealthy over
// 100%). nullopt when the spec has none (remediation is opt-in, N10).
std::expected<std::optional<RemediationSpec>, std::vector<Violation>> check_remediation(
    const nlohmann::json& pool_spec);

// What the remediation of one node has done, kept in status.remediation.nodes.
struct NodeRemediation {
  std::string node;
  std::string code;                       // the fault it follows
  TimePoint since{};                      // when respool first saw the fault (N11's clock)
  int step = 0;                           // the rule's step it is at
  int attempts = 0;                       // operations of this step so far
  std::optional<TimePoint> step_start{};  // when this step's operation was created
  std::optional<TimePoint> retry_at{};    // N15: a failed step's next try
  bool exhausted = false;                 // every step done, the fault still there: reported
};
nlohmann::json to_json(const std::vector<NodeRemediation>& nodes);
std::vector<NodeRemediation> node_remediations_from_json(const nlohmann::json& array);

// The newest NodeOperation respool's remediation created for a node (its labels say the step
// and the attempt), as its status says.
struct AutomaticOperation {
  std::string name;
  int step = 0, attempt = 0;
  std::string phase;   // Pending, Running, Succeeded, Failed, Rejected, Previewed
  std::string reason;  // e.g. NoIdleNode
  bool ended() const { return phase != "Pending" && phase != "Running" && !phase.empty(); }
};

// One pool node as the round sees it.
struct RemediationNode {
  std::string name;
  std::vector<std::string> fault_codes{};  // its fault isolation codes (F1, F2, F5), taint order
  bool abnormal = false;                   // counts against maxUnhealthy
  std::optional<std::string> person_operation{};  // a NodeOperation someone else asked for
  std::optional<AutomaticOperation> automatic{};  // the newest automatic one, ended or not
};

struct RemediationInput {
  const RemediationSpec* spec = nullptr;
  std::vector<RemediationNode> nodes;   // every node of the pool
  std::vector<NodeRemediation> memory;  // status.remediation.nodes as last written
  bool driver_upgrading = false;        // N6: no automatic operation meanwhile
  TimePoint now{};
};

// An automatic NodeOperation to create.
struct RemediationAction {
  std::string node, code;
  int step = 0, attempt = 0;
  RemediationStep what;
  bool preview = false;  // N16: dryRun, the operation is created as a preview (N18)
};

// A node's remediation in words, for status.remediation.nodes[].state and the pool's events.
struct RemediationView {
  std::string node, code;
  // Waiting, Running, Escalating, Retrying, Exhausted, Paused, Held, Previewed
  std::string state;
  std::string message;
  std::optional<TimePoint> next_action{};
};

struct RemediationPlan {
  std::vector<NodeRemediation> memory;  // what status.remediation.nodes becomes
  std::vector<RemediationAction> create;
  std::vector<RemediationView> nodes;
  bool paused = false;  // N14
  std::string paused_message;
  std::optional<TimePoint> next_check{};  // the earliest time something falls due
};

// N10–N16 for one pool.
RemediationPlan plan_remediation(const RemediationInput& input);

// N15: the wait before the next try of a step that failed `attempts` times: 1 min, doubling,
// at most 1 hour.
std::chrono::seconds remediation_backoff(int attempts);

// auto-<node>-<code>-<step>-<attempt> (the code in lower case, the step counted from 1), the
// node's part shortened to keep a valid object name: deterministic, so that a create repeated
// after a crash finds the operation it made.
std::string remediation_operation_name(std::string_view node, std::string_view code, int step,
                                       int attempt);

}  // namespace respool::policy
