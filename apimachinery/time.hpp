#pragma once
// RFC 3339 times as Kubernetes reads and writes them: metav1.Time (whole seconds, UTC, "Z"),
// metav1.MicroTime (six fractional digits), and time.Parse(time.RFC3339, ...).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace respool::apimachinery {

using TimePoint = std::chrono::system_clock::time_point;

// An instant as Unix seconds and nanoseconds: the years 0000 to 9999 that RFC 3339 spells and
// beyond (a TimePoint holds only about 1678 to 2262).
struct Instant {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;  // 0 to 999'999'999
  friend bool operator==(const Instant&, const Instant&) = default;
};

// How many fractional digits a formatted time shows.
enum class Fraction {
  None,          // metav1.Time: "2006-01-02T15:04:05Z"
  Micros,        // metav1.MicroTime: "2006-01-02T15:04:05.000000Z"
  Nanos,         // RFC3339NanoFixed (kubelet log timestamps): ".000000000"
  NanosTrimmed,  // RFC3339Nano: trailing zeros dropped, none when whole
};

// In UTC; years outside 0..9999 as Go prints them (a sign, at least four digits).
std::string format_rfc3339(Instant t, Fraction fraction = Fraction::None);
// time.Parse(time.RFC3339, ...) as metav1.Time reads it: Z or a ±hh:mm offset and any number
// of fractional digits (past nanoseconds they truncate); nullopt when malformed or out of range
// (second 60 included, as Go refuses it).
std::optional<Instant> parse_rfc3339(std::string_view text);

Instant to_instant(TimePoint t);

// "2026-01-01T00:00:00Z" (fractions of a second are dropped, as metav1.Time does).
std::string format_time(TimePoint t);
// "2026-01-01T00:00:00.000000Z"
std::string format_micro_time(TimePoint t);
// parse_rfc3339 as a TimePoint; nullopt also past what a TimePoint holds.
std::optional<TimePoint> parse_time(std::string_view text);

}  // namespace respool::apimachinery
