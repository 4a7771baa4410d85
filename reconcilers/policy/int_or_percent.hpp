#pragma once
// An int or a percentage, as Kubernetes writes maxUnavailable (IntOrString), and the two ways
// respool rounds a share of a total (RULES.md, "Rounding").

#include <expected>
#include <string>

#include <nlohmann/json.hpp>

namespace respool::policy {

// An int or a percentage ("25%"), as maxUnavailable is written.
struct IntOrPercent {
  int value = 0;
  bool percent = false;
  // Of `total`: a percentage rounds up, at least 1 (D2 batches, as a DaemonSet rounds).
  int of_rounding_up(int total) const;
  // Of `total`: a percentage rounds down, at least 1 (N1, N2, N7).
  int of_rounding_down(int total) const;
  std::string to_string() const;
  bool operator==(const IntOrPercent&) const = default;
};
std::expected<IntOrPercent, std::string> parse_int_or_percent(const nlohmann::json& value);

}  // namespace respool::policy
