#include "reconcilers/policy/time.hpp"

#include <algorithm>
#include <cstdio>
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

std::string go_duration(std::chrono::milliseconds d) {
  const long long ms = std::max<long long>(0, d.count());
  if (ms < 1000) return std::to_string(ms) + "ms";
  std::string out;
  const long long h = ms / 3'600'000, m = ms / 60'000 % 60, s = ms / 1000 % 60, frac = ms % 1000;
  if (h) out += std::to_string(h) + "h";
  if (h || m) out += std::to_string(m) + "m";
  out += std::to_string(s);
  if (frac) {
    char f[8];
    std::snprintf(f, sizeof f, ".%03lld", frac);
    std::string fraction = f;
    while (fraction.back() == '0')
      fraction.pop_back();
    out += fraction;
  }
  return out + "s";
}

}  // namespace respool::policy
