#pragma once
// Go's time.Duration as Kubernetes components read and write it: "90s", "1h30m", "1.5s",
// "500ms", "-2m".

#include <chrono>
#include <expected>
#include <string>
#include <string_view>

namespace respool::apimachinery {

// time.ParseDuration, exactly: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+ or "0", with units ns, us (µs,
// μs), ms, s, m, h, in any order and repeated; fractions are exact to the nanosecond (truncated
// past it). Errors are Go's: `time: invalid duration "x"`, `time: missing unit in duration "x"`,
// `time: unknown unit "d" in duration "5d"`; overflow past int64 nanoseconds is invalid.
std::expected<std::chrono::nanoseconds, std::string> parse_duration(std::string_view text);

}  // namespace respool::apimachinery
