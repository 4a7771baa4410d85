#pragma once
// metav1.Time (RFC 3339, seconds) and metav1.MicroTime (six fractional digits).

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace respool::kube {

using TimePoint = std::chrono::system_clock::time_point;

// "2026-01-01T00:00:00Z"
std::string format_time(TimePoint t);
// "2026-01-01T00:00:00.000000Z"
std::string format_micro_time(TimePoint t);
// Accepts Z or ±hh:mm offsets and any number of fractional digits.
std::optional<TimePoint> parse_time(std::string_view text);

}  // namespace respool::kube
