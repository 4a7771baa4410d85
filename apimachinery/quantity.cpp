// resource.Quantity parsing (the grammar of parseQuantityString in k8s.io/apimachinery) with
// exact decimal arithmetic on digit strings, so "0.1Gi" or "1.5e-2" round only once, at the
// milli-unit; and Quantity.String()'s canonical forms (CanonicalizeBytes).

#include "apimachinery/quantity.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <utility>

#include "apimachinery/chars.hpp"

namespace respool::apimachinery {
namespace {

__extension__ typedef __int128 Wide;  // exact sums and products of two int64s

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = -kMax;

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

// An exponent past this makes any non-zero quantity saturate or round to the smallest unit.
constexpr int kExponentLimit = 1000;

using chars::is_digit;
bool is_suffix_char(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

// value * 10^exp10 * 2^exp2 is what a suffix means.
struct Scale {
  int exp10 = 0;
  int exp2 = 0;
  QuantityFormat format = QuantityFormat::DecimalSI;
};

std::optional<Scale> exponent_suffix(std::string_view suffix) {
  if (suffix.size() < 2 || (suffix.front() != 'e' && suffix.front() != 'E')) return std::nullopt;
  std::string_view exponent = suffix.substr(1);
  bool negative = false;
  if (exponent.front() == '+' || exponent.front() == '-') {
    negative = exponent.front() == '-';
    exponent.remove_prefix(1);
  }
  if (exponent.empty() || !std::ranges::all_of(exponent, is_digit)) return std::nullopt;
  int value = 0;
  for (char c : exponent) {
    value = std::min(value * 10 + (c - '0'), kExponentLimit);
  }
  return Scale{negative ? -value : value, 0, QuantityFormat::DecimalExponent};
}

std::optional<Scale> interpret_suffix(std::string_view suffix) {
  using enum QuantityFormat;
  struct Entry {
    std::string_view name;
    Scale scale;
  };
  static constexpr std::array<Entry, 16> kTable{{
      {"", {0, 0, DecimalSI}},
      {"n", {-9, 0, DecimalSI}},
      {"u", {-6, 0, DecimalSI}},
      {"m", {-3, 0, DecimalSI}},
      {"k", {3, 0, DecimalSI}},
      {"M", {6, 0, DecimalSI}},
      {"G", {9, 0, DecimalSI}},
      {"T", {12, 0, DecimalSI}},
      {"P", {15, 0, DecimalSI}},
      {"E", {18, 0, DecimalSI}},
      {"Ki", {0, 10, BinarySI}},
      {"Mi", {0, 20, BinarySI}},
      {"Gi", {0, 30, BinarySI}},
      {"Ti", {0, 40, BinarySI}},
      {"Pi", {0, 50, BinarySI}},
      {"Ei", {0, 60, BinarySI}},
  }};
  for (const Entry& entry : kTable) {
    if (entry.name == suffix) return entry.scale;
  }
  return exponent_suffix(suffix);
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

std::int64_t saturate(Wide v) {
  if (v > kMax) return kMax;
  if (v < kMin) return kMin;
  return static_cast<std::int64_t>(v);
}

// AsCanonicalBytes: the mantissa without trailing zeros, the exponent lowered to a multiple
// of 3, and the SI suffix (or "eN") for it. milli is not zero.
std::string decimal_form(std::int64_t milli, QuantityFormat format) {
  std::int64_t mantissa = milli;
  int exponent = -3;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  while (exponent % 3 != 0) {  // never past -3: no more factors of 10 than were removed
    mantissa *= 10;
    --exponent;
  }
  std::string out = std::to_string(mantissa);
  if (format == QuantityFormat::DecimalExponent) {
    if (exponent != 0) out.append("e").append(std::to_string(exponent));
    return out;
  }
  static constexpr std::array<std::string_view, 8> kSuffixes{"m", "", "k", "M", "G", "T", "P", "E"};
  return out.append(kSuffixes[static_cast<std::size_t>(exponent / 3 + 1)]);
}

// AsCanonicalBase1024Bytes: whole units as a multiple of the largest power of 1024.
std::string binary_form(std::int64_t units) {
  static constexpr std::array<std::string_view, 7> kSuffixes{"",   "Ki", "Mi", "Gi",
                                                             "Ti", "Pi", "Ei"};
  std::size_t power = 0;
  while (units % 1024 == 0 && power + 1 < kSuffixes.size()) {
    units /= 1024;
    ++power;
  }
  return std::to_string(units).append(kSuffixes[power]);
}

}  // namespace

std::string_view quantity_format_error() {
  return kErrFormatWrong;
}

std::expected<QuantityParts, std::string> parse_quantity_parts(std::string_view text) {
  if (text.empty()) return std::unexpected(std::string(kErrFormatWrong));
  std::size_t pos = 0;
  QuantityParts parts;
  if (text[pos] == '+' || text[pos] == '-') parts.negative = text[pos++] == '-';
  const auto digits_from = [&](std::size_t start) {
    while (pos < text.size() && is_digit(text[pos]))
      ++pos;
    return text.substr(start, pos - start);
  };
  const std::string_view int_part = digits_from(pos);
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') fraction = digits_from(++pos);

  const std::size_t suffix_start = pos;
  while (pos < text.size() && is_suffix_char(text[pos]))
    ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  digits_from(pos);
  if (pos != text.size()) return std::unexpected(std::string(kErrFormatWrong));

  const auto scale = interpret_suffix(text.substr(suffix_start));
  if (!scale) return std::unexpected(std::string(kErrSuffix));
  if (int_part.empty() && fraction.empty()) return std::unexpected(std::string(kErrNumeric));

  parts.digits.append(int_part).append(fraction);
  parts.digits.erase(0, std::min(parts.digits.find_first_not_of('0'), parts.digits.size()));
  parts.exp10 = scale->exp10 - static_cast<std::int64_t>(fraction.size());
  parts.exp2 = scale->exp2;
  parts.format = scale->format;
  return parts;
}

Quantity Quantity::from_units(std::int64_t units, Format format) {
  std::int64_t milli = 0;
  if (__builtin_mul_overflow(units, std::int64_t{1000}, &milli) || milli < kMin) {
    return Quantity(units < 0 ? kMin : kMax, format);
  }
  return Quantity(milli, format);
}

std::expected<Quantity, std::string> Quantity::parse(std::string_view text) {
  auto parts = parse_quantity_parts(text);
  if (!parts) return std::unexpected(std::move(parts.error()));
  if (parts->digits.empty()) return Quantity(0, parts->format);
  for (int shift = 0; shift < parts->exp2; shift += 10)
    multiply(parts->digits, 1024);
  const std::int64_t magnitude = scaled_magnitude(parts->digits, parts->exp10 + 3);
  return Quantity(parts->negative ? -magnitude : magnitude, parts->format);
}

std::int64_t Quantity::value() const {
  std::int64_t units = milli_ / 1000;
  if (milli_ % 1000 != 0) units += milli_ > 0 ? 1 : -1;
  return units;
}

std::string Quantity::to_string() const {
  if (milli_ == 0) return "0";
  const bool whole = milli_ % 1000 == 0;
  if (format_ == Format::BinarySI && whole && (milli_ >= 1024000 || milli_ <= -1024000)) {
    return binary_form(milli_ / 1000);
  }
  return decimal_form(
      milli_, format_ == Format::DecimalExponent ? Format::DecimalExponent : Format::DecimalSI);
}

Quantity& Quantity::operator+=(const Quantity& other) {
  if (milli_ == 0) format_ = other.format_;
  milli_ = saturate(static_cast<Wide>(milli_) + other.milli_);
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& other) {
  if (milli_ == 0) format_ = other.format_;
  milli_ = saturate(static_cast<Wide>(milli_) - other.milli_);
  return *this;
}

Quantity operator*(const Quantity& q, std::int64_t n) {
  return Quantity(saturate(static_cast<Wide>(q.milli_) * n), q.format_);
}

}  // namespace respool::apimachinery
