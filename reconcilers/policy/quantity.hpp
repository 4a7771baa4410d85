#pragma once
// resource.Quantity arithmetic for the plug-ins' requests (P12): "500m", "4Gi", "2", "1.5".
// Held in milli-units. The policy library stands alone (no operator/kube), hence its own.

#include <compare>
#include <cstdint>
#include <expected>
#include <map>
#include <string>
#include <string_view>

namespace respool::policy {

class Quantity {
 public:
  Quantity() = default;
  static Quantity from_milli(std::int64_t milli) { return Quantity(milli); }
  // Errors say what is wrong with the text.
  static std::expected<Quantity, std::string> parse(std::string_view text);

  std::int64_t milli() const { return milli_; }
  // Whole units, rounded up.
  std::int64_t value() const;
  // "500m"; "4Gi" for exact binary multiples of at least 1Ki; else the largest exact decimal
  // suffix ("1500M", "2").
  std::string to_string() const;

  Quantity& operator+=(const Quantity& other);
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  // Scaling by a count (saturates instead of overflowing).
  friend Quantity operator*(const Quantity& q, std::int64_t n);
  friend auto operator<=>(const Quantity&, const Quantity&) = default;

 private:
  explicit Quantity(std::int64_t milli) : milli_(milli) {}
  std::int64_t milli_ = 0;
};

// A resource list: resource name → quantity ("cpu" → 2, "memory" → 4Gi).
using ResourceList = std::map<std::string, Quantity>;

}  // namespace respool::policy
