#include <catch2/catch.hpp>

#include "apimachinery/duration.hpp"

using namespace std::chrono;
using respool::apimachinery::parse_duration;

// Go's time.ParseDuration is the reference (src/time/time_test.go's parseDurationTests).
TEST_CASE("Go durations parse as time.ParseDuration does", "[duration]") {
  struct Case {
    const char* text;
    nanoseconds expected;
  };
  for (const Case& c : std::vector<Case>{
           {"0", 0ns},
           {"5s", 5s},
           {"30s", 30s},
           {"1478s", 1478s},
           {"-5s", -5s},
           {"+5s", 5s},
           {"-0", 0ns},
           {"+0", 0ns},
           {"5.0s", 5s},
           {"5.6s", 5s + 600ms},
           {"5.s", 5s},
           {".5s", 500ms},
           {"1.0s", 1s},
           {"1.004s", 1004ms},
           {"100.00100s", 100s + 1ms},
           {"10ns", 10ns},
           {"11us", 11us},
           {"12\xC2\xB5s", 12us},
           {"12\xCE\xBCs", 12us},
           {"13ms", 13ms},
           {"14s", 14s},
           {"15m", 15min},
           {"16h", 16h},
           {"3h30m", 3h + 30min},
           {"10.5s4m", 4min + 10s + 500ms},
           {"-2m3.4s", -(2min + 3s + 400ms)},
           {"1h2m3s4ms5us6ns", 1h + 2min + 3s + 4ms + 5us + 6ns},
           {"39h9m14.425s", 39h + 9min + 14s + 425ms},
           {"52763797000ns", 52763797000ns},
           {"0.3333333333333333333h", 20min},
           {"9007199254740993ns", nanoseconds((std::int64_t{1} << 53) + 1)},
           {"9223372036854775807ns", nanoseconds::max()},
           {"9223372036854775.807us", nanoseconds::max()},
           {"-9223372036854775808ns", nanoseconds::min()},
           {"0.100000000000000000000h", 6min},
       }) {
    CAPTURE(c.text);
    auto d = parse_duration(c.text);
    REQUIRE(d.has_value());
    CHECK(*d == c.expected);
  }
}

TEST_CASE("malformed Go durations get Go's errors", "[duration]") {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"", "time: invalid duration \"\""},
           {"3", "time: missing unit in duration \"3\""},
           {"-", "time: invalid duration \"-\""},
           {"s", "time: invalid duration \"s\""},
           {".", "time: invalid duration \".\""},
           {"-.", "time: invalid duration \"-.\""},
           {".s", "time: invalid duration \".s\""},
           {"+.s", "time: invalid duration \"+.s\""},
           {"1d", "time: unknown unit \"d\" in duration \"1d\""},
           {"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""},
           {"9223372036854775.808us", "time: invalid duration \"9223372036854775.808us\""},
           {"-9223372036854775809ns", "time: invalid duration \"-9223372036854775809ns\""},
           {"3000000h", "time: invalid duration \"3000000h\""},
       }) {
    CAPTURE(c.text);
    auto d = parse_duration(c.text);
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == c.error);
  }
}
