// RFC 3339 for metav1.Time and metav1.MicroTime. Hand-written: GCC 12 has the C++20 calendar
// but neither std::format for chrono nor chrono::parse.

#include "operator/kube/time.hpp"

#include <cstdio>

namespace respool::kube {
namespace {

using namespace std::chrono;

struct Civil {
  year_month_day date;
  hh_mm_ss<seconds> time;
};

Civil civil(sys_seconds t) {
  const sys_days day = floor<days>(t);
  return {year_month_day(day), hh_mm_ss<seconds>(t - day)};
}

std::string format_seconds(const Civil& c, long long micros, bool with_micros) {
  char buf[48];
  const int year = static_cast<int>(c.date.year());
  const unsigned month = static_cast<unsigned>(c.date.month());
  const unsigned day = static_cast<unsigned>(c.date.day());
  const auto hour = static_cast<int>(c.time.hours().count());
  const auto minute = static_cast<int>(c.time.minutes().count());
  const auto second = static_cast<int>(c.time.seconds().count());
  if (with_micros) {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%06lldZ", year, month, day, hour,
                  minute, second, micros);
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", year, month, day, hour, minute,
                  second);
  }
  return buf;
}

// Reads exactly `count` decimal digits at text[pos].
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t count) {
  if (pos + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool expect(std::string_view text, std::size_t pos, char c) {
  return pos < text.size() && text[pos] == c;
}

}  // namespace

std::string format_time(TimePoint t) {
  return format_seconds(civil(floor<seconds>(t)), 0, false);
}

std::string format_micro_time(TimePoint t) {
  const auto micros = floor<microseconds>(t);
  const auto secs = floor<seconds>(micros);
  return format_seconds(civil(secs), (micros - secs).count(), true);
}

std::optional<TimePoint> parse_time(std::string_view text) {
  // 2006-01-02T15:04:05[.frac](Z|+07:00)
  const auto year = digits(text, 0, 4);
  const auto month = digits(text, 5, 2);
  const auto day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2);
  const auto minute = digits(text, 14, 2);
  const auto second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (!expect(text, 4, '-') || !expect(text, 7, '-') || !expect(text, 13, ':') ||
      !expect(text, 16, ':') || !(expect(text, 10, 'T') || expect(text, 10, 't'))) {
    return std::nullopt;
  }
  const year_month_day date{std::chrono::year(*year),
                            std::chrono::month(static_cast<unsigned>(*month)),
                            std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;

  std::size_t pos = 19;
  nanoseconds fraction{0};
  if (expect(text, pos, '.')) {
    ++pos;
    const std::size_t start = pos;
    long long scale = 100'000'000;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      fraction += nanoseconds((text[pos] - '0') * scale);  // digits past nanoseconds truncate
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }

  minutes offset{0};
  if (expect(text, pos, 'Z') || expect(text, pos, 'z')) {
    ++pos;
  } else if (expect(text, pos, '+') || expect(text, pos, '-')) {
    const bool negative = text[pos] == '-';
    const auto off_hour = digits(text, pos + 1, 2);
    const auto off_minute = digits(text, pos + 4, 2);
    if (!off_hour || !off_minute || !expect(text, pos + 3, ':') || *off_hour > 23 ||
        *off_minute > 59) {
      return std::nullopt;
    }
    offset = hours(*off_hour) + minutes(*off_minute);
    if (negative) offset = -offset;
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;

  const auto local = sys_days(date) + hours(*hour) + minutes(*minute) + seconds(*second) + fraction;
  return floor<system_clock::duration>(local - offset);
}

}  // namespace respool::kube
