#pragma once
// The risk level of a training job (O1-O6), as the documents' intelligent O&M shows it: what the
// fault monitor, the code-error detector and the performance monitor found, graded and combined
// into the one word of the `respool.io/risk` label. Pure: the controller gathers the facts.

#include <optional>
#include <string_view>

namespace respool::policy {

inline constexpr const char* kRiskLabel = "respool.io/risk";

// Ordered by severity for NoRisk < Low < Medium < High; Unprotected and Monitoring stand apart.
enum class Risk { Unprotected, NoRisk, Monitoring, Low, Medium, High };
std::string_view to_string(Risk risk);  // "Unprotected", "NoRisk", ..., as the label says it
std::optional<Risk> parse_risk(std::string_view text);
// The anomaly levels a catalogue entry or a monitor may give: Low, Medium, High.
bool is_anomaly_level(Risk risk);
// The more severe of two levels (NoRisk < Low < Medium < High).
Risk more_severe(Risk a, Risk b);

// What the monitors know of one job, gathered by the controller each round.
struct RiskFacts {
  bool protected_job = false;        // O1: respool's fault tolerance is on (J1)
  int fault_restarts = 0;            // O2: restarts upon a fault (J3, J4) or a hang (J5)
  bool retries_exhausted = false;    // O2: J3 said none are left
  bool node_fault_recurred = false;  // O2: one node faulted the job in two runs
  std::optional<Risk> code_error;    // O3: the highest level of the catalogue entries matched
  bool straggler = false;            // O4: a task far below the others for the window
  bool check_running = false;        // O6: a diagnosis of the job is gathering
  std::optional<Risk> recorded;      // O5: the level the label shows now, if any
};

// O1-O6: the level the label should show.
Risk grade_risk(const RiskFacts& facts);

}  // namespace respool::policy
