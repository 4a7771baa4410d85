#pragma once
// Times and durations as the policy layer reads and writes them. It formats the times it puts
// into status and parses creationTimestamp with apimachinery's metav1.Time; it never reads a
// clock.

#include <chrono>
#include <expected>
#include <string>
#include <string_view>

#include "apimachinery/time.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

using apimachinery::format_time;
using apimachinery::parse_time;

// A Go duration of whole hours, minutes and seconds, in that order ("24h", "1h30m", "90s"), as
// users write them in specs and annotations; the error says what it must be.
std::expected<std::chrono::seconds, std::string> parse_duration(std::string_view text);

// Go's time.Duration.String to the millisecond: "850ms", "1.25s", "2m3.5s", "10m0s".
std::string go_duration(std::chrono::milliseconds d);

}  // namespace respool::policy
