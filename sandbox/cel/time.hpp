#pragma once
// google.protobuf.Timestamp and Duration as CEL has them: RFC 3339 timestamps between the
// years 1 and 9999, Go-syntax durations ("1h45m", "1.5s") held in int64 nanoseconds, and the
// time zones of the timestamp accessors (fixed offsets "+05:30" and IANA names).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace respool::sandbox::cel {

inline constexpr std::int64_t kMinTimestampSeconds = -62135596800;  // 0001-01-01T00:00:00Z
inline constexpr std::int64_t kMaxTimestampSeconds = 253402300799;  // 9999-12-31T23:59:59Z

struct Timestamp {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
};

std::optional<Timestamp> parse_timestamp(std::string_view text);
std::string format_timestamp(std::int64_t seconds, std::int32_t nanos);
bool timestamp_in_range(std::int64_t seconds);

std::optional<std::int64_t> parse_duration(std::string_view text);  // time.ParseDuration
std::string format_duration(std::int64_t nanos);                    // "1.5s"

// The civil time of a UTC instant shifted by an offset in seconds.
struct Civil {
  std::int64_t year;
  int month;  // 1..12
  int day;    // 1..31
  int hour, minute, second;
  int day_of_week;  // 0 = Sunday
  int day_of_year;  // 0-based
};
Civil civil_time(std::int64_t seconds);

// Reads the TZif file of an IANA zone name ("Europe/Paris"), or nullopt. The CEL module does
// no I/O itself: whoever evaluates passes a reader (the sandbox's reads /usr/share/zoneinfo).
using ZoneInfo = std::function<std::optional<std::string>(std::string_view name)>;

// The offset (seconds east of UTC) of a zone at a UTC instant: "UTC", "+05:30", "-02:00",
// "02:00" or an IANA name. nullopt for an unknown zone.
std::optional<std::int64_t> zone_offset(std::string_view zone, std::int64_t utc_seconds,
                                        const ZoneInfo& zoneinfo);

}  // namespace respool::sandbox::cel
