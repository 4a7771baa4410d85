#include "sandbox/protobuf/go_json.hpp"

#include <cstdio>

namespace respool::sandbox::protobuf {
namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 (utf8.DecodeRuneInString's rules:
// no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days).
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
}

// Go's fmtFrac/fmtInt for Duration.String: v in units of 10^prec, printed with its fraction.
std::string with_fraction(std::uint64_t v, int prec) {
  std::string frac;
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    unsigned digit = static_cast<unsigned>(v % 10);
    print = print || digit != 0;
    if (print) frac.insert(frac.begin(), static_cast<char>('0' + digit));
    v /= 10;
  }
  std::string out = std::to_string(v);
  if (print) out += "." + frac;
  return out;
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string base64(std::string_view bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    unsigned v = at(i) << 16;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    unsigned v = (at(i) << 16) | (at(i + 1) << 8);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string rfc3339(std::int64_t seconds, std::int64_t nanos, bool micros) {
  // Floor division, so times before 1970 land on the right day.
  std::int64_t days = seconds / 86400, rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  std::int64_t year = 0;
  unsigned month = 0, day = 0;
  civil_from_days(days, year, month, day);
  char buf[96];
  // Go's time.Format pads years to 4 digits and writes a sign for negative ones.
  std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02d", year < 0 ? "-" : "",
                static_cast<long long>(year < 0 ? -year : year), month, day,
                static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                static_cast<int>(rem % 60));
  std::string out = buf;
  if (micros) {
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(nanos / 1000));
    out += buf;
  }
  return out + "Z";
}

std::string go_duration(std::int64_t d) {
  if (d == 0) return "0s";
  bool negative = d < 0;
  std::uint64_t u = negative ? 0 - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);
  std::string out;
  if (u < 1000000000ULL) {
    // Less than a second: ns, µs or ms with a fraction.
    if (u < 1000ULL) {
      out = std::to_string(u) + "ns";
    } else if (u < 1000000ULL) {
      out = with_fraction(u, 3) + "\xC2\xB5s";
    } else {
      out = with_fraction(u, 6) + "ms";
    }
  } else {
    std::string secs = with_fraction(u % 60000000000ULL, 9) + "s";
    std::uint64_t minutes = u / 60000000000ULL;
    if (minutes == 0) {
      out = secs;
    } else {
      std::uint64_t hours = minutes / 60;
      out = std::to_string(minutes % 60) + "m" + secs;
      if (hours > 0) out = std::to_string(hours) + "h" + out;
    }
  }
  return negative ? "-" + out : out;
}

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    unsigned char c = static_cast<unsigned char>(s[i]);
    char buf[8];
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (n == 1) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c < 0x20 || c == 0x7f) {
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return out + "\"";
}

}  // namespace respool::sandbox::protobuf
