#include "sandbox/cel/time.hpp"

#include "apimachinery/duration.hpp"
#include "apimachinery/time.hpp"

#include "sandbox/cel/value.hpp"

#include <cstdio>
#include <vector>

namespace respool::sandbox::cel {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  auto yoe = static_cast<unsigned>(y - era * 400);
  unsigned doy =
      (153 * static_cast<unsigned>(m + (m > 2 ? -3 : 9)) + 2) / 5 + static_cast<unsigned>(d) - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

std::int64_t read_be(const std::string& data, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v = (v << 8) | static_cast<unsigned char>(data[at + i]);
  if (bytes == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  return static_cast<std::int64_t>(v);
}

// The offset of a TZif file's zone at a UTC instant (RFC 8536; the footer is not read).
std::optional<std::int64_t> tzif_offset(const std::string& data, std::int64_t t) {
  if (data.size() < 44 || data.compare(0, 4, "TZif") != 0) return std::nullopt;
  auto counts = [&](std::size_t at) {
    std::vector<std::int64_t> c;
    for (int i = 0; i < 6; ++i)
      c.push_back(read_be(data, at + 20 + 4 * i, 4));
    return c;  // isutcnt isstdcnt leapcnt timecnt typecnt charcnt
  };
  std::size_t at = 0;
  int width = 4;
  auto c = counts(0);
  if (data[4] >= '2') {
    std::size_t v1 = 44 + c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (data.size() < v1 + 44) return std::nullopt;
    at = v1;
    c = counts(at);
    width = 8;
  }
  std::size_t times = at + 44;
  std::size_t indices = times + c[3] * width;
  std::size_t types = indices + c[3];
  if (data.size() < types + c[4] * 6 || c[4] == 0) return std::nullopt;
  std::size_t type = 0;
  for (std::int64_t i = 0; i < c[3]; ++i) {
    if (read_be(data, times + i * width, width) > t) break;
    type = static_cast<unsigned char>(data[indices + i]);
  }
  if (static_cast<std::int64_t>(type) >= c[4]) return std::nullopt;
  return read_be(data, types + type * 6, 4);
}

}  // namespace

bool timestamp_in_range(std::int64_t seconds) {
  return seconds >= kMinTimestampSeconds && seconds <= kMaxTimestampSeconds;
}

std::optional<Timestamp> parse_timestamp(std::string_view s) {
  const auto t = apimachinery::parse_rfc3339(s);
  if (!t) return std::nullopt;
  return Timestamp{t->seconds, t->nanos};
}

Civil civil_time(std::int64_t seconds) {
  std::int64_t days = floor_div(seconds, 86400);
  std::int64_t rem = seconds - days * 86400;
  std::int64_t z = days + 719468;
  std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  auto doe = static_cast<unsigned>(z - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  unsigned d = doy - (153 * mp + 2) / 5 + 1;
  unsigned m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  Civil c{};
  c.year = y;
  c.month = static_cast<int>(m);
  c.day = static_cast<int>(d);
  c.hour = static_cast<int>(rem / 3600);
  c.minute = static_cast<int>(rem / 60 % 60);
  c.second = static_cast<int>(rem % 60);
  c.day_of_week = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  c.day_of_year = static_cast<int>(days - days_from_civil(y, 1, 1));
  return c;
}

std::string format_timestamp(std::int64_t seconds, std::int32_t nanos) {
  return apimachinery::format_rfc3339({seconds, nanos}, apimachinery::Fraction::NanosTrimmed);
}

std::optional<std::int64_t> parse_duration(std::string_view s) {
  const auto d = apimachinery::parse_duration(s);
  if (!d) return std::nullopt;
  return d->count();
}

std::string format_duration(std::int64_t nanos) {
  bool neg = nanos < 0;
  auto abs = neg ? -static_cast<unsigned long long>(nanos) : static_cast<unsigned long long>(nanos);
  // Appended, not `(neg ? "-" : "") + std::to_string(...)`: GCC 12 at -O3 reports a false
  // -Wrestrict on that (GCC bug 105329).
  std::string out = neg ? "-" : "";
  out += std::to_string(abs / 1000000000ULL);
  if (abs % 1000000000ULL) {
    char buf[16];
    std::snprintf(buf, sizeof buf, ".%09llu", abs % 1000000000ULL);
    std::string frac = buf;
    while (frac.back() == '0')
      frac.pop_back();
    out += frac;
  }
  return out + "s";
}

std::optional<std::int64_t> zone_offset(std::string_view zone, std::int64_t t,
                                        const ZoneInfo& zoneinfo) {
  if (zone == "UTC" || zone == "Z") return 0;
  if (zone.find(':') != std::string_view::npos) {
    bool neg = false;
    if (!zone.empty() && (zone[0] == '+' || zone[0] == '-')) {
      neg = zone[0] == '-';
      zone.remove_prefix(1);
    }
    int h, m;
    if (zone.size() != 5 || !digits(zone, 0, 2, h) || zone[2] != ':' || !digits(zone, 3, 2, m))
      return std::nullopt;
    return (h * 3600 + m * 60) * (neg ? -1 : 1);
  }
  for (char c : zone) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '/' || c == '_' || c == '-' || c == '+';
    if (!ok) return std::nullopt;
  }
  if (zone.find("..") != std::string_view::npos || zone.empty() || zone[0] == '/')
    return std::nullopt;
  if (!zoneinfo) return std::nullopt;
  std::optional<std::string> data = zoneinfo(zone);
  if (!data) return std::nullopt;
  return tzif_offset(*data, t);
}

}  // namespace respool::sandbox::cel
