#include "reconcilers/policy/time.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>

namespace respool::policy {

namespace {

using namespace std::chrono;

// Reads exactly `width` digits at `pos`.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::string format_time(TimePoint t) {
  auto secs = floor<seconds>(t);
  auto day = floor<days>(secs);
  year_month_day ymd{day};
  hh_mm_ss hms{secs - day};
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02dZ", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), int(hms.hours().count()),
                int(hms.minutes().count()), int(hms.seconds().count()));
  return buffer;
}

std::optional<TimePoint> parse_time(std::string_view text) {
  auto y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2);
  auto h = digits(text, 11, 2), mi = digits(text, 14, 2), s = digits(text, 17, 2);
  if (!y || !mo || !d || !h || !mi || !s || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  year_month_day ymd{year{*y}, month{unsigned(*mo)}, day{unsigned(*d)}};
  if (!ymd.ok() || *h > 23 || *mi > 59 || *s > 60) return std::nullopt;
  std::size_t pos = 19;
  nanoseconds fraction{0};
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::int64_t scale = 100'000'000;
    std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      fraction += nanoseconds{(text[pos] - '0') * scale};
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  minutes offset{0};
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    auto oh = digits(text, pos + 1, 2), om = digits(text, pos + 4, 2);
    if (!oh || !om || pos + 3 >= text.size() || text[pos + 3] != ':') return std::nullopt;
    offset = hours{*oh} + minutes{*om};
    if (text[pos] == '-') offset = -offset;
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  auto local = sys_days{ymd} + hours{*h} + minutes{*mi} + seconds{*s};
  return time_point_cast<system_clock::duration>(local - offset + fraction);
}

std::expected<std::chrono::seconds, std::string> parse_duration(std::string_view text) {
  if (text.empty()) return std::unexpected("must be a duration such as 24h, 1h30m or 90s");
  std::int64_t total = 0;
  std::size_t i = 0;
  std::string_view last_unit;
  while (i < text.size()) {
    std::int64_t number = 0;
    const std::size_t digits_start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      number = number * 10 + (text[i] - '0');
      if (number > 1'000'000'000) return std::unexpected("is too long");
      ++i;
    }
    if (i == digits_start || i == text.size())
      return std::unexpected("must be a duration such as 24h, 1h30m or 90s");
    const char unit = text[i++];
    const std::string_view order = "hms";
    const auto pos = order.find(unit);
    if (pos == std::string_view::npos || (!last_unit.empty() && pos <= order.find(last_unit[0])))
      return std::unexpected("must be a duration such as 24h, 1h30m or 90s");
    last_unit = order.substr(pos, 1);
    total += number * (unit == 'h' ? 3600 : unit == 'm' ? 60 : 1);
  }
  return std::chrono::seconds(total);
}

}  // namespace respool::policy
