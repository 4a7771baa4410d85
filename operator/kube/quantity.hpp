#pragma once
// resource.Quantity: "8", "500m", "4Gi", "1.5", "2e3". Held in milli-units (exact for what
// nodes and pods state; values past ~9.2e15 units saturate, at +/-INT64_MAX milli-units). Like
// the API server, parsing rounds a finer value away from zero ("1n" is 1m) and accepts the
// decimal SI suffixes n u m "" k M G T P E, the binary ones Ki Mi Gi Ti Pi Ei and exponents
// (1e3, 1E-3); the format a quantity was written in is not kept.

#include <compare>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace respool::kube {

class Quantity {
 public:
  Quantity() = default;
  static Quantity from_milli(std::int64_t milli) { return Quantity(milli); }
  static Quantity from_units(std::int64_t units);  // saturates
  // Errors are the API server's: "quantities must match the regular expression '...'",
  // "unable to parse numeric part of quantity", "unable to parse quantity's suffix".
  static std::expected<Quantity, std::string> parse(std::string_view text);

  std::int64_t milli() const { return milli_; }
  // Whole units, rounded up (away from zero, as Quantity.Value(): 1500m is 2, -1500m is -2).
  std::int64_t value() const;
  // Canonical form: "500m" when fractional, "4Gi" for a whole multiple of 1024 (the largest
  // binary suffix that divides it), else the plain integer ("2", "1000"). Parseable by parse().
  std::string to_string() const;

  Quantity& operator+=(const Quantity& other);  // saturating
  Quantity& operator-=(const Quantity& other);  // saturating
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  friend auto operator<=>(const Quantity&, const Quantity&) = default;

 private:
  explicit Quantity(std::int64_t milli) : milli_(milli) {}
  std::int64_t milli_ = 0;
};

}  // namespace respool::kube
