#include "sandbox/protobuf/go_json.hpp"

#include "apimachinery/time.hpp"

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

std::string rfc3339(std::int64_t seconds, std::int64_t nanos, bool micros) {
  using apimachinery::Fraction;
  return apimachinery::format_rfc3339({seconds, static_cast<std::int32_t>(nanos)},
                                      micros ? Fraction::Micros : Fraction::None);
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

}  // namespace respool::sandbox::protobuf
