#include "reconcilers/policy/time.hpp"

#include <regex>

#include "apimachinery/duration.hpp"

namespace respool::policy {

std::expected<std::chrono::seconds, std::string> parse_duration(std::string_view text) {
  // What users may write is narrower than Go's grammar: no signs, fractions or sub-second units.
  static const std::regex kShape("([0-9]+h)?([0-9]+m)?([0-9]+s)?");
  constexpr std::string_view kExample = "must be a duration such as 24h, 1h30m or 90s";
  if (text.empty() || !std::regex_match(text.begin(), text.end(), kShape)) {
    return std::unexpected(std::string(kExample));
  }
  const auto parsed = apimachinery::parse_duration(text);
  if (!parsed) return std::unexpected("is too long");  // past Go's int64 nanoseconds
  return std::chrono::duration_cast<std::chrono::seconds>(*parsed);
}

}  // namespace respool::policy
