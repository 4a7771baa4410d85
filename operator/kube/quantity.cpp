// resource.Quantity parsing (the grammar of parseQuantityString in k8s.io/apimachinery) with
// exact decimal arithmetic on digit strings, so "0.1Gi" or "1.5e-2" round only once, at the
// milli-unit.

#include "operator/kube/quantity.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace respool::kube {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = -kMax;

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

// An exponent past this makes any non-zero quantity saturate or round to one milli-unit.
constexpr int kExponentLimit = 1000;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_suffix_char(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

std::int64_t saturate(bool negative, std::int64_t magnitude) {
  return negative ? -magnitude : magnitude;
}

// value * 10^exp10 * 2^exp2 in milli-units is what a suffix means.
struct Scale {
  int exp10 = 0;
  int exp2 = 0;
};

std::optional<Scale> interpret_suffix(std::string_view suffix) {
  struct Entry {
    std::string_view name;
    Scale scale;
  };
  static constexpr std::array<Entry, 16> kTable{{
      {"", {0, 0}},
      {"n", {-9, 0}},
      {"u", {-6, 0}},
      {"m", {-3, 0}},
      {"k", {3, 0}},
      {"M", {6, 0}},
      {"G", {9, 0}},
      {"T", {12, 0}},
      {"P", {15, 0}},
      {"E", {18, 0}},
      {"Ki", {0, 10}},
      {"Mi", {0, 20}},
      {"Gi", {0, 30}},
      {"Ti", {0, 40}},
      {"Pi", {0, 50}},
      {"Ei", {0, 60}},
  }};
  for (const Entry& entry : kTable) {
    if (entry.name == suffix) return entry.scale;
  }
  if (suffix.size() < 2 || (suffix.front() != 'e' && suffix.front() != 'E')) return std::nullopt;
  std::string_view exponent = suffix.substr(1);
  bool negative = false;
  if (exponent.front() == '+' || exponent.front() == '-') {
    negative = exponent.front() == '-';
    exponent.remove_prefix(1);
  }
  if (exponent.empty() || !std::ranges::all_of(exponent, is_digit)) return std::nullopt;
  const std::size_t first = std::min(exponent.find_first_not_of('0'), exponent.size());
  exponent.remove_prefix(first);
  int value = 0;
  for (char c : exponent) {
    value = std::min(value * 10 + (c - '0'), kExponentLimit);
  }
  return Scale{negative ? -value : value, 0};
}

// digits *= factor, on a decimal string without leading zeros.
void multiply(std::string& digits, unsigned factor) {
  unsigned long long carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const unsigned long long v = static_cast<unsigned long long>(*it - '0') * factor + carry;
    *it = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
}

// ceil(|digits| * 10^exp10), saturated at kMax; digits has no leading zeros and is not "0".
std::int64_t scaled_magnitude(const std::string& digits, std::int64_t exp10) {
  constexpr std::size_t kMaxDigits = 19;  // kMax has 19 digits
  std::string whole;
  bool remainder = false;
  if (exp10 >= 0) {
    if (digits.size() + static_cast<std::size_t>(exp10) > kMaxDigits) return kMax;
    whole = digits + std::string(static_cast<std::size_t>(exp10), '0');
  } else {
    const auto cut = static_cast<std::size_t>(-exp10);
    if (cut >= digits.size()) return 1;  // a non-zero amount below one milli-unit
    whole = digits.substr(0, digits.size() - cut);
    remainder = digits.find_first_not_of('0', digits.size() - cut) != std::string::npos;
  }
  if (whole.size() > kMaxDigits) return kMax;
  unsigned long long magnitude = 0;
  for (char c : whole)
    magnitude = magnitude * 10 + static_cast<unsigned long long>(c - '0');
  if (remainder) ++magnitude;
  return magnitude > static_cast<unsigned long long>(kMax) ? kMax
                                                           : static_cast<std::int64_t>(magnitude);
}

}  // namespace

Quantity Quantity::from_units(std::int64_t units) {
  std::int64_t milli = 0;
  if (__builtin_mul_overflow(units, std::int64_t{1000}, &milli) || milli < kMin) {
    return Quantity(units < 0 ? kMin : kMax);
  }
  return Quantity(milli);
}

std::expected<Quantity, std::string> Quantity::parse(std::string_view text) {
  if (text.empty()) return std::unexpected(std::string(kErrFormatWrong));
  std::size_t pos = 0;
  bool negative = false;
  if (text[pos] == '+' || text[pos] == '-') negative = text[pos++] == '-';

  const std::size_t int_start = pos;
  while (pos < text.size() && is_digit(text[pos]))
    ++pos;
  const std::string_view int_part = text.substr(int_start, pos - int_start);
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t frac_start = ++pos;
    while (pos < text.size() && is_digit(text[pos]))
      ++pos;
    fraction = text.substr(frac_start, pos - frac_start);
  }

  const std::size_t suffix_start = pos;
  while (pos < text.size() && is_suffix_char(text[pos]))
    ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  while (pos < text.size() && is_digit(text[pos]))
    ++pos;
  if (pos != text.size()) return std::unexpected(std::string(kErrFormatWrong));

  const auto scale = interpret_suffix(text.substr(suffix_start));
  if (!scale) return std::unexpected(std::string(kErrSuffix));
  if (int_part.empty() && fraction.empty()) return std::unexpected(std::string(kErrNumeric));

  std::string digits = std::string(int_part) + std::string(fraction);
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) return Quantity();
  for (int shift = 0; shift < scale->exp2; shift += 10)
    multiply(digits, 1024);
  const std::int64_t exp10 = scale->exp10 - static_cast<std::int64_t>(fraction.size()) + 3;
  return Quantity(saturate(negative, scaled_magnitude(digits, exp10)));
}

std::int64_t Quantity::value() const {
  std::int64_t units = milli_ / 1000;
  if (milli_ % 1000 != 0) units += milli_ > 0 ? 1 : -1;
  return units;
}

std::string Quantity::to_string() const {
  if (milli_ % 1000 != 0) return std::to_string(milli_) + "m";
  const std::int64_t units = milli_ / 1000;
  if (units == 0) return "0";
  static constexpr std::array<std::pair<int, std::string_view>, 6> kBinary{{
      {60, "Ei"},
      {50, "Pi"},
      {40, "Ti"},
      {30, "Gi"},
      {20, "Mi"},
      {10, "Ki"},
  }};
  for (const auto& [shift, suffix] : kBinary) {
    const std::int64_t unit = std::int64_t{1} << shift;
    if (units % unit == 0) return std::to_string(units / unit) + std::string(suffix);
  }
  return std::to_string(units);
}

Quantity& Quantity::operator+=(const Quantity& other) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(milli_, other.milli_, &sum) || sum < kMin) {
    sum = other.milli_ < 0 ? kMin : kMax;
  }
  milli_ = sum;
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& other) {
  std::int64_t difference = 0;
  if (__builtin_sub_overflow(milli_, other.milli_, &difference) || difference < kMin) {
    difference = other.milli_ > 0 ? kMin : kMax;
  }
  milli_ = difference;
  return *this;
}

}  // namespace respool::kube
