// RFC 3339 for metav1.Time and metav1.MicroTime. Hand-written: GCC 12 has the C++20 calendar
// but neither std::format for chrono nor chrono::parse; and the calendar arithmetic is on
// 64-bit days (Howard Hinnant's algorithms), so every year Go can print is printed.

#include "apimachinery/time.hpp"

#include <cstdio>
#include <limits>

namespace respool::apimachinery {
namespace {

using namespace std::chrono;

constexpr std::int64_t kSecondsPerDay = 86'400;

struct Date {
  std::int64_t year = 0;
  unsigned month = 0;  // 1..12
  unsigned day = 0;    // 1..31
};

// Days since 1970-01-01 of a proleptic Gregorian date (days_from_civil).
std::int64_t days_from_civil(const Date& date) {
  const std::int64_t y = date.year - (date.month <= 2 ? 1 : 0);
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy =
      (153 * (date.month > 2 ? date.month - 3 : date.month + 9) + 2) / 5 + date.day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// The date of a count of days since 1970-01-01 (civil_from_days).
Date civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  Date date;
  date.day = doy - (153 * mp + 2) / 5 + 1;
  date.month = mp < 10 ? mp + 3 : mp - 9;
  date.year = static_cast<std::int64_t>(yoe) + era * 400 + (date.month <= 2 ? 1 : 0);
  return date;
}

std::string fraction_text(std::int32_t nanos, Fraction fraction) {
  char buf[16];
  switch (fraction) {
    case Fraction::None:
      return "";
    case Fraction::Micros:
      std::snprintf(buf, sizeof buf, ".%06d", nanos / 1000);
      return buf;
    case Fraction::Nanos:
      std::snprintf(buf, sizeof buf, ".%09d", nanos);
      return buf;
    case Fraction::NanosTrimmed:
      break;
  }
  if (nanos == 0) return "";
  std::snprintf(buf, sizeof buf, ".%09d", nanos);
  std::string out = buf;
  while (out.back() == '0')
    out.pop_back();
  return out;
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

bool valid_date(int year, int month, int day) {
  return year_month_day{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                        std::chrono::day(static_cast<unsigned>(day))}
      .ok();
}

// "2006-01-02T15:04:05" at the start of text, as seconds since the epoch.
std::optional<std::int64_t> date_and_time(std::string_view text) {
  const auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2), minute = digits(text, 14, 2);
  const auto second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (!expect(text, 4, '-') || !expect(text, 7, '-') || !expect(text, 13, ':') ||
      !expect(text, 16, ':') || !(expect(text, 10, 'T') || expect(text, 10, 't'))) {
    return std::nullopt;
  }
  if (!valid_date(*year, *month, *day) || *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  const Date date{*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)};
  return days_from_civil(date) * kSecondsPerDay + *hour * 3600 + *minute * 60 + *second;
}

// ".123456789" at text[pos], if there; digits past nanoseconds truncate.
std::optional<std::int32_t> fraction_at(std::string_view text, std::size_t& pos) {
  if (!expect(text, pos, '.')) return 0;
  const std::size_t start = ++pos;
  std::int32_t nanos = 0, scale = 100'000'000;
  for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
    nanos += (text[pos] - '0') * scale;
    scale /= 10;
  }
  if (pos == start) return std::nullopt;
  return nanos;
}

// "Z" or "±hh:mm" at text[pos], as seconds east of UTC.
std::optional<std::int64_t> offset_at(std::string_view text, std::size_t& pos) {
  if (expect(text, pos, 'Z') || expect(text, pos, 'z')) {
    ++pos;
    return 0;
  }
  if (!expect(text, pos, '+') && !expect(text, pos, '-')) return std::nullopt;
  const bool negative = text[pos] == '-';
  const auto hour = digits(text, pos + 1, 2), minute = digits(text, pos + 4, 2);
  if (!hour || !minute || !expect(text, pos + 3, ':') || *hour > 23 || *minute > 59) {
    return std::nullopt;
  }
  pos += 6;
  const std::int64_t offset = *hour * 3600 + *minute * 60;
  return negative ? -offset : offset;
}

}  // namespace

std::string format_rfc3339(Instant t, Fraction fraction) {
  std::int64_t days = t.seconds / kSecondsPerDay, rem = t.seconds % kSecondsPerDay;
  if (rem < 0) {  // floor division, so times before 1970 land on the right day
    rem += kSecondsPerDay;
    --days;
  }
  const Date date = civil_from_days(days);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02d", date.year < 0 ? "-" : "",
                static_cast<long long>(date.year < 0 ? -date.year : date.year), date.month,
                date.day, static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                static_cast<int>(rem % 60));
  std::string out = buf;
  out += fraction_text(t.nanos, fraction);
  out += 'Z';
  return out;
}

std::optional<Instant> parse_rfc3339(std::string_view text) {
  const auto local = date_and_time(text);
  if (!local) return std::nullopt;
  std::size_t pos = 19;
  const auto nanos = fraction_at(text, pos);
  if (!nanos) return std::nullopt;
  const auto offset = offset_at(text, pos);
  if (!offset || pos != text.size()) return std::nullopt;
  return Instant{*local - *offset, *nanos};
}

Instant to_instant(TimePoint t) {
  const auto ns = floor<nanoseconds>(t);
  const auto secs = floor<seconds>(ns);
  return {secs.time_since_epoch().count(), static_cast<std::int32_t>((ns - secs).count())};
}

std::string format_time(TimePoint t) {
  return format_rfc3339(to_instant(t), Fraction::None);
}

std::string format_micro_time(TimePoint t) {
  return format_rfc3339(to_instant(t), Fraction::Micros);
}

std::optional<TimePoint> parse_time(std::string_view text) {
  const auto instant = parse_rfc3339(text);
  if (!instant) return std::nullopt;
  using Rep = TimePoint::duration::rep;
  constexpr auto kLimit = duration_cast<seconds>(TimePoint::duration::max()).count() - 1;
  if (instant->seconds > kLimit || instant->seconds < -kLimit) return std::nullopt;
  const auto since_epoch = duration_cast<TimePoint::duration>(seconds(instant->seconds)) +
                           duration_cast<TimePoint::duration>(nanoseconds(instant->nanos));
  static_assert(std::numeric_limits<Rep>::is_signed);
  return TimePoint(since_epoch);
}

}  // namespace respool::apimachinery
