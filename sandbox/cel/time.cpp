#include "sandbox/cel/time.hpp"

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
  int y, mo, d, h, mi, se;
  if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return std::nullopt;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > kDays[mo - 1] + (mo == 2 && leap ? 1 : 0)) return std::nullopt;
  std::size_t i = 19;
  std::int32_t nanos = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (n < 9) nanos = nanos * 10 + (s[i] - '0');
      ++n, ++i;
    }
    if (n == 0) return std::nullopt;
    for (; n < 9; ++n)
      nanos *= 10;
  }
  std::int64_t offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!digits(s, i + 1, 2, oh) || i + 3 >= s.size() || s[i + 3] != ':' ||
        !digits(s, i + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  std::int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
  return Timestamp{secs, nanos};
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
  Civil c = civil_time(seconds);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d", static_cast<long long>(c.year),
                c.month, c.day, c.hour, c.minute, c.second);
  std::string out = buf;
  if (nanos) {
    std::snprintf(buf, sizeof buf, ".%09d", nanos);
    std::string frac = buf;
    while (frac.back() == '0')
      frac.pop_back();
    out += frac;
  }
  return out + "Z";
}

std::optional<std::int64_t> parse_duration(std::string_view s) {
  // Go's time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+ and "0".
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return std::nullopt;
  Int128 total = 0;
  while (!s.empty()) {
    Int128 whole = 0;
    Int128 frac = 0, scale = 1;
    std::size_t i = 0;
    bool any = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      whole = whole * 10 + (s[i] - '0');
      if (whole > static_cast<Int128>(1) << 63) return std::nullopt;
      ++i, any = true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (scale < static_cast<Int128>(1000000000000000000)) {
          frac = frac * 10 + (s[i] - '0');
          scale *= 10;
        }
        ++i, any = true;
      }
    }
    if (!any) return std::nullopt;
    std::size_t u = i;
    while (u < s.size() && s[u] != '.' && (s[u] < '0' || s[u] > '9'))
      ++u;
    std::string_view unit = s.substr(i, u - i);
    std::int64_t mult;
    if (unit == "ns") {
      mult = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      mult = 1000;
    } else if (unit == "ms") {
      mult = 1000000;
    } else if (unit == "s") {
      mult = 1000000000;
    } else if (unit == "m") {
      mult = 60000000000;
    } else if (unit == "h") {
      mult = 3600000000000;
    } else {
      return std::nullopt;
    }
    total += whole * mult + frac * mult / scale;
    if (total > static_cast<Int128>(1) << 63) return std::nullopt;
    s.remove_prefix(u);
  }
  if (neg) total = -total;
  if (total > INT64_MAX || total < INT64_MIN) return std::nullopt;
  return static_cast<std::int64_t>(total);
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
