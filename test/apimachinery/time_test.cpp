#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"

using namespace std::chrono;
using respool::apimachinery::format_micro_time;
using respool::apimachinery::format_time;
using respool::apimachinery::parse_time;
using respool::apimachinery::TimePoint;

namespace {

TimePoint at(year_month_day date, nanoseconds offset = {}) {
  return TimePoint(
      duration_cast<system_clock::duration>(sys_days(date).time_since_epoch() + offset));
}

}  // namespace

TEST_CASE("metav1.Time formats to whole seconds in UTC", "[time]") {
  CHECK(format_time(at(2026y / 1 / 1)) == "2026-01-01T00:00:00Z");
  CHECK(format_time(at(2026y / 1 / 1, 13h + 4min + 5s + 999ms)) == "2026-01-01T13:04:05Z");
  CHECK(format_time(at(2024y / 2 / 29, 23h + 59min + 59s)) == "2024-02-29T23:59:59Z");
  CHECK(format_time(at(1970y / 1 / 1, -1s)) == "1969-12-31T23:59:59Z");
  CHECK(format_time(at(1970y / 1 / 1, -1ms)) == "1969-12-31T23:59:59Z");
}

TEST_CASE("metav1.MicroTime formats six fractional digits", "[time]") {
  CHECK(format_micro_time(at(2026y / 1 / 1)) == "2026-01-01T00:00:00.000000Z");
  CHECK(format_micro_time(at(2026y / 1 / 1, 123456789ns)) == "2026-01-01T00:00:00.123456Z");
  CHECK(format_micro_time(at(2026y / 3 / 15, 7h + 8min + 9s + 10us)) ==
        "2026-03-15T07:08:09.000010Z");
  CHECK(format_micro_time(at(1970y / 1 / 1, -1us)) == "1969-12-31T23:59:59.999999Z");
}

TEST_CASE("RFC 3339 parses with fractions and offsets", "[time]") {
  struct Case {
    std::string text;
    TimePoint expected;
  };
  const std::vector<Case> cases = {
      {"2026-01-01T00:00:00Z", at(2026y / 1 / 1)},
      {"2026-01-01t00:00:00z", at(2026y / 1 / 1)},
      {"2026-01-01T00:00:00.5Z", at(2026y / 1 / 1, 500ms)},
      {"2026-01-01T00:00:00.000000Z", at(2026y / 1 / 1)},
      {"2026-01-01T00:00:00.123456Z", at(2026y / 1 / 1, 123456us)},
      {"2026-01-01T00:00:00.123456789Z", at(2026y / 1 / 1, 123456789ns)},
      {"2026-01-01T00:00:00.123456789999Z", at(2026y / 1 / 1, 123456789ns)},
      {"2026-01-01T02:00:00+02:00", at(2026y / 1 / 1)},
      {"2025-12-31T23:30:00-00:30", at(2026y / 1 / 1)},
      {"2026-01-01T00:00:00+00:00", at(2026y / 1 / 1)},
      {"2024-02-29T12:00:00Z", at(2024y / 2 / 29, 12h)},
      {"1969-12-31T23:59:59Z", at(1970y / 1 / 1, -1s)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto t = parse_time(c.text);
    REQUIRE(t.has_value());
    CHECK(*t == c.expected);
  }
}

TEST_CASE("RFC 3339 parsing rejects garbage", "[time]") {
  for (const char* text : {
           "",
           "2026-01-01",
           "2026-01-01T00:00:00",
           "2026-13-01T00:00:00Z",
           "2026-00-01T00:00:00Z",
           "2026-02-30T00:00:00Z",
           "2025-02-29T00:00:00Z",
           "2026-01-01T24:00:00Z",
           "2026-01-01T00:60:00Z",
           "2026-01-01T00:00:60Z",
           "2026-01-01 00:00:00Z",
           "2026-01-01T00:00:00.Z",
           "2026-01-01T00:00:00+0200",
           "2026-01-01T00:00:00+24:00",
           "2026-01-01T00:00:00+02:60",
           "2026-01-01T00:00:00Zjunk",
           "x026-01-01T00:00:00Z",
           "2026-1-01T00:00:00Z",
           "2026-01-01T00:00:00 Z",
           "not a time",
       }) {
    CAPTURE(text);
    CHECK_FALSE(parse_time(text).has_value());
  }
}

TEST_CASE("formatted times parse back", "[time]") {
  const TimePoint t = at(2031y / 7 / 4, 5h + 6min + 7s + 891011121ns);
  CHECK(parse_time(format_time(t)) == floor<seconds>(t));
  CHECK(parse_time(format_micro_time(t)) == floor<microseconds>(t));
}

// reconcilers/policy had its own parse_time; it took a leap second ("...:60Z"), which Go's
// time.Parse (and so metav1.Time) refuses as out of range. apimachinery refuses it.
TEST_CASE("a leap second is out of range, as in Go", "[time]") {
  CHECK_FALSE(parse_time("2016-12-31T23:59:60Z").has_value());
  CHECK_FALSE(respool::apimachinery::parse_rfc3339("2016-12-31T23:59:60Z").has_value());
}

TEST_CASE("instants span every year RFC 3339 spells", "[time]") {
  using respool::apimachinery::format_rfc3339;
  using respool::apimachinery::Fraction;
  using respool::apimachinery::Instant;
  using respool::apimachinery::parse_rfc3339;
  CHECK(parse_rfc3339("0001-01-01T00:00:00Z") == Instant{-62135596800, 0});
  CHECK(parse_rfc3339("9999-12-31T23:59:59.999999999Z") == Instant{253402300799, 999999999});
  CHECK(format_rfc3339({-62135596800, 0}) == "0001-01-01T00:00:00Z");
  CHECK(format_rfc3339({-62135596800 - 86400LL * 366, 0}) == "0000-01-01T00:00:00Z");
  CHECK(format_rfc3339({-62135596800 - 86400LL * 731, 0}) == "-0001-01-01T00:00:00Z");
  // A TimePoint holds about 1678 to 2262: parse_time says so rather than overflowing.
  CHECK_FALSE(parse_time("0001-01-01T00:00:00Z").has_value());
  CHECK_FALSE(parse_time("9999-01-01T00:00:00Z").has_value());
  const Instant t{1767225600, 120000000};
  CHECK(format_rfc3339(t, Fraction::None) == "2026-01-01T00:00:00Z");
  CHECK(format_rfc3339(t, Fraction::Micros) == "2026-01-01T00:00:00.120000Z");
  CHECK(format_rfc3339(t, Fraction::Nanos) == "2026-01-01T00:00:00.120000000Z");
  CHECK(format_rfc3339(t, Fraction::NanosTrimmed) == "2026-01-01T00:00:00.12Z");
  CHECK(format_rfc3339({1767225600, 0}, Fraction::NanosTrimmed) == "2026-01-01T00:00:00Z");
}
