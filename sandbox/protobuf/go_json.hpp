#pragma once
// How Go's encoding/json and the apimachinery types write values the protobuf decoder turns
// into JSON: strings (invalid UTF-8 replaced), metav1.Time and MicroTime
// (RFC 3339 in UTC), metav1.Duration (time.Duration's String), and %q for error messages.

#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/go_format.hpp"

namespace respool::sandbox::protobuf {

// The string Go's encoding/json writes for s: each byte of an invalid UTF-8 sequence becomes
// U+FFFD.
std::string valid_utf8(std::string_view s);
// "2006-01-02T15:04:05Z" for Unix seconds (metav1.Time; years outside 0..9999 as Go prints
// them); with `micros`, "2006-01-02T15:04:05.000000Z" (metav1.MicroTime).
std::string rfc3339(std::int64_t seconds, std::int64_t nanos = 0, bool micros = false);
// time.Duration(nanoseconds).String(): "1h2m3.5s", "0s", "1.5µs".
std::string go_duration(std::int64_t nanoseconds);
// Go's %q of a string.
using apimachinery::go_quote;

}  // namespace respool::sandbox::protobuf
