#pragma once
// resource.Quantity: "8", "500m", "4Gi", "1.5", "2e3". Held in milli-units (exact for what
// nodes and pods state; values past ~9.2e15 units saturate, at +/-INT64_MAX milli-units). Like
// the API server, parsing rounds a finer value away from zero ("1n" is 1m) and accepts the
// decimal SI suffixes n u m "" k M G T P E, the binary ones Ki Mi Gi Ti Pi Ei and exponents
// (1e3, 1E-3). As in k8s.io/apimachinery, a quantity remembers the format it was written in
// (DecimalSI, BinarySI, DecimalExponent) and prints itself canonically in that format.

#include <compare>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace respool::apimachinery {

enum class QuantityFormat : std::uint8_t { DecimalSI, BinarySI, DecimalExponent };

// parseQuantityString's reading of a quantity, before any scaling: the value is
// digits × 10^exp10 × 2^exp2. For callers that hold quantities at another precision (CEL's
// nano-units).
struct QuantityParts {
  bool negative = false;
  std::string digits;      // integer and fraction digits, leading zeros removed ("" for zero)
  std::int64_t exp10 = 0;  // the suffix's power of ten less the fraction's length
  int exp2 = 0;            // the binary suffix's power of two
  QuantityFormat format = QuantityFormat::DecimalSI;
};

// Errors are the API server's: "quantities must match the regular expression '...'",
// "unable to parse numeric part of quantity", "unable to parse quantity's suffix".
std::expected<QuantityParts, std::string> parse_quantity_parts(std::string_view text);

// The API server's message for text that does not match the quantity grammar.
std::string_view quantity_format_error();

class Quantity {
 public:
  using Format = QuantityFormat;

  Quantity() = default;
  static Quantity from_milli(std::int64_t milli, Format format = Format::DecimalSI) {
    return Quantity(milli, format);
  }
  static Quantity from_units(std::int64_t units, Format format = Format::DecimalSI);  // saturates
  static std::expected<Quantity, std::string> parse(std::string_view text);

  std::int64_t milli() const { return milli_; }
  Format format() const { return format_; }
  // Whole units, rounded away from zero (Quantity.Value(): 1500m is 2, -1500m is -2).
  std::int64_t value() const;
  // Quantity.String(): the canonical form in the quantity's format. DecimalSI: no trailing
  // zeros, an SI suffix for an exponent that is a multiple of 3 ("1500m", "2", "1k", "1500M").
  // BinarySI: the largest power of 1024 that divides it ("4Gi", "1536Mi"), or DecimalSI for a
  // quantity under 1024 or with a fraction. DecimalExponent: "1e3", "15e-3". Parseable by parse().
  std::string to_string() const;

  // Saturating arithmetic. As Quantity.Add and Sub, a zero quantity takes the other's format;
  // otherwise the left operand's format is kept.
  Quantity& operator+=(const Quantity& other);
  Quantity& operator-=(const Quantity& other);
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  // Scaling by a count, as Quantity.Mul.
  friend Quantity operator*(const Quantity& q, std::int64_t n);
  // Quantities compare by amount, whatever their format (Quantity.Cmp).
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.milli_ == b.milli_; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.milli_ <=> b.milli_;
  }

 private:
  Quantity(std::int64_t milli, Format format) : milli_(milli), format_(format) {}
  std::int64_t milli_ = 0;
  Format format_ = Format::DecimalSI;
};

}  // namespace respool::apimachinery
