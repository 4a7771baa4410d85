#include "reconcilers/policy/quantity.hpp"

#include <array>
#include <limits>

namespace respool::policy {

namespace {

__extension__ typedef __int128 Wide;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::int64_t saturate(Wide v) {
  if (v > kMax) return kMax;
  if (v < -kMax) return -kMax;
  return static_cast<std::int64_t>(v);
}

Wide pow10(int n) {
  Wide r = 1;
  while (n-- > 0)
    r *= 10;
  return r;
}

struct Suffix {
  std::string_view text;
  int base;      // 2 or 10
  int exponent;  // power of 1024 or of 10
};

constexpr std::array kSuffixes{Suffix{"Ki", 2, 1},  Suffix{"Mi", 2, 2},  Suffix{"Gi", 2, 3},
                               Suffix{"Ti", 2, 4},  Suffix{"Pi", 2, 5},  Suffix{"Ei", 2, 6},
                               Suffix{"n", 10, -9}, Suffix{"u", 10, -6}, Suffix{"m", 10, -3},
                               Suffix{"k", 10, 3},  Suffix{"M", 10, 6},  Suffix{"G", 10, 9},
                               Suffix{"T", 10, 12}, Suffix{"P", 10, 15}, Suffix{"E", 10, 18}};

}  // namespace

std::expected<Quantity, std::string> Quantity::parse(std::string_view text) {
  // Appended, not "\"" + ... + "\"": GCC 12 at -O3 sees a false -Wrestrict in the latter.
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted.append(1, '"').append(text).append(1, '"');
  std::size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) negative = text[pos++] == '-';
  Wide mantissa = 0;
  int decimal_exponent = 0;
  std::size_t digit_count = 0;
  bool point = false;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c == '.' && !point) {
      point = true;
    } else if (c >= '0' && c <= '9') {
      // Digits beyond 30 cannot matter at milli precision for values that fit in 64 bits.
      if (mantissa < pow10(30)) {
        mantissa = mantissa * 10 + (c - '0');
        if (point) --decimal_exponent;
      } else if (!point) {
        ++decimal_exponent;
      }
      ++digit_count;
    } else {
      break;
    }
  }
  if (digit_count == 0) return std::unexpected(quoted + " is not a quantity: no digits");
  std::string_view rest = text.substr(pos);
  int binary_exponent = 0;
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E') && rest.size() > 1) {
    int exp = 0, sign = 1;
    std::size_t i = 1;
    if (rest[i] == '+' || rest[i] == '-') sign = rest[i++] == '-' ? -1 : 1;
    if (i == rest.size()) return std::unexpected(quoted + " is not a quantity: bad exponent");
    for (; i < rest.size(); ++i) {
      if (rest[i] < '0' || rest[i] > '9' || exp > 100) {
        return std::unexpected(quoted + " is not a quantity: bad exponent");
      }
      exp = exp * 10 + (rest[i] - '0');
    }
    decimal_exponent += sign * exp;
  } else if (!rest.empty()) {
    bool known = false;
    for (const Suffix& s : kSuffixes) {
      if (s.text == rest) {
        (s.base == 2 ? binary_exponent : decimal_exponent) += s.exponent;
        known = true;
      }
    }
    if (!known) return std::unexpected(quoted + " is not a quantity: unknown suffix");
  }
  // milli = mantissa × 10^(decimal_exponent + 3) × 1024^binary_exponent, rounded up.
  Wide value = mantissa;
  for (int i = 0; i < binary_exponent && value <= kMax; ++i)
    value *= 1024;
  int scale = decimal_exponent + 3;
  if (scale >= 0) {
    for (int i = 0; i < scale && value <= kMax; ++i)
      value *= 10;
  } else if (scale < -38) {
    value = value > 0 ? 1 : 0;
  } else {
    Wide divisor = pow10(-scale);
    value = value / divisor + (value % divisor != 0 ? 1 : 0);
  }
  std::int64_t milli = saturate(value);
  return Quantity(negative ? -milli : milli);
}

std::int64_t Quantity::value() const {
  std::int64_t units = milli_ / 1000;
  if (milli_ % 1000 > 0) ++units;
  return units;
}

std::string Quantity::to_string() const {
  if (milli_ % 1000 != 0) return std::to_string(milli_) + "m";
  std::int64_t units = milli_ / 1000;
  if (units == 0) return "0";
  static constexpr std::array<std::string_view, 6> kBinary{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  for (int k = 6; k >= 1; --k) {
    std::int64_t unit = std::int64_t{1} << (10 * k);
    if (units % unit == 0) return std::to_string(units / unit) + std::string(kBinary[k - 1]);
  }
  static constexpr std::array<std::string_view, 6> kDecimal{"k", "M", "G", "T", "P", "E"};
  for (int k = 6; k >= 1; --k) {
    auto unit = static_cast<std::int64_t>(pow10(3 * k));
    if (units % unit == 0) return std::to_string(units / unit) + std::string(kDecimal[k - 1]);
  }
  return std::to_string(units);
}

Quantity& Quantity::operator+=(const Quantity& other) {
  milli_ = saturate(Wide{milli_} + other.milli_);
  return *this;
}

Quantity operator*(const Quantity& q, std::int64_t n) {
  return Quantity(saturate(Wide{q.milli_} * n));
}

}  // namespace respool::policy
