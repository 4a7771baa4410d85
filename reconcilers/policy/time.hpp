#pragma once
// RFC 3339 times as Kubernetes writes them (metav1.Time: whole seconds, UTC, "Z"). The policy
// layer formats the times it puts into status and parses creationTimestamp; it never reads a clock.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "reconcilers/policy/types.hpp"

namespace respool::policy {

// "2026-01-01T00:00:00Z" (fractions of a second are dropped, as metav1.Time does).
std::string format_time(TimePoint t);
// Accepts "Z" or a ±hh:mm offset and any number of fractional digits; nullopt when malformed.
std::optional<TimePoint> parse_time(std::string_view text);

// A Go duration of whole hours, minutes and seconds, in that order ("24h", "1h30m", "90s"), as
// users write them in specs and annotations; the error says what it must be.
std::expected<std::chrono::seconds, std::string> parse_duration(std::string_view text);

}  // namespace respool::policy
