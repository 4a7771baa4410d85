// time.ParseDuration (Go's src/time/format.go) in unsigned 64-bit arithmetic as Go does it, so
// the overflow limits and the rounding of fractions are Go's.

#include "apimachinery/duration.hpp"

#include <cstdint>
#include <optional>

#include "apimachinery/chars.hpp"

namespace respool::apimachinery {
namespace {

constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;

using chars::is_digit;

std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  return out.append(1, '"').append(text).append(1, '"');
}

std::optional<std::uint64_t> unit_nanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  return std::nullopt;
}

// One "<number><unit>" term: its value in nanoseconds, or Go's error.
struct Term {
  std::uint64_t nanos = 0;
  std::string error;
};

Term read_term(std::string_view& s, std::string_view original) {
  const std::string invalid = "time: invalid duration " + quoted(original);
  std::uint64_t whole = 0, fraction = 0;
  double scale = 1;
  bool any = false;
  for (; !s.empty() && is_digit(s.front()); s.remove_prefix(1), any = true) {
    if (whole > kLimit / 10) return {0, invalid};  // leadingInt's overflow
    whole = whole * 10 + static_cast<std::uint64_t>(s.front() - '0');
    if (whole > kLimit) return {0, invalid};
  }
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    bool overflow = false;  // leadingFraction: digits past int64 precision are dropped
    for (; !s.empty() && is_digit(s.front()); s.remove_prefix(1), any = true) {
      if (overflow || fraction > (kLimit - 1) / 10) {
        overflow = true;
        continue;
      }
      fraction = fraction * 10 + static_cast<std::uint64_t>(s.front() - '0');
      scale *= 10;
    }
  }
  if (!any) return {0, invalid};
  std::size_t length = 0;
  while (length < s.size() && s[length] != '.' && !is_digit(s[length]))
    ++length;
  if (length == 0) return {0, "time: missing unit in duration " + quoted(original)};
  const std::string_view unit_text = s.substr(0, length);
  s.remove_prefix(length);
  const auto unit = unit_nanos(unit_text);
  if (!unit) {
    return {0, "time: unknown unit " + quoted(unit_text) + " in duration " + quoted(original)};
  }
  if (whole > kLimit / *unit) return {0, invalid};
  std::uint64_t nanos = whole * *unit;
  if (fraction > 0) {
    nanos += static_cast<std::uint64_t>(static_cast<double>(fraction) *
                                        (static_cast<double>(*unit) / scale));
    if (nanos > kLimit) return {0, invalid};
  }
  return {nanos, ""};
}

}  // namespace

std::expected<std::chrono::nanoseconds, std::string> parse_duration(std::string_view text) {
  const std::string_view original = text;
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return std::chrono::nanoseconds(0);
  const std::string invalid = "time: invalid duration " + quoted(original);
  if (text.empty()) return std::unexpected(invalid);
  std::uint64_t total = 0;
  while (!text.empty()) {
    if (text.front() != '.' && !is_digit(text.front())) return std::unexpected(invalid);
    Term term = read_term(text, original);
    if (!term.error.empty()) return std::unexpected(std::move(term.error));
    total += term.nanos;
    if (total > kLimit) return std::unexpected(invalid);
  }
  if (negative) return std::chrono::nanoseconds(static_cast<std::int64_t>(0 - total));
  if (total > kLimit - 1) return std::unexpected(invalid);
  return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

}  // namespace respool::apimachinery
