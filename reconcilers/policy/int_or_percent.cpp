#include "reconcilers/policy/int_or_percent.hpp"

#include <algorithm>
#include <cstdint>

namespace respool::policy {

using nlohmann::json;

int IntOrPercent::of_rounding_up(int total) const {
  if (!percent) return std::max(1, value);
  return std::max(1, int((std::int64_t{value} * total + 99) / 100));
}

int IntOrPercent::of_rounding_down(int total) const {
  if (!percent) return std::max(1, value);
  return std::max(1, int(std::int64_t{value} * total / 100));
}

std::string IntOrPercent::to_string() const {
  return std::to_string(value) + (percent ? "%" : "");
}

std::expected<IntOrPercent, std::string> parse_int_or_percent(const json& value) {
  if (value.is_number_integer()) {
    if (value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > 1'000'000) {
      return std::unexpected("must be at least 1");
    }
    return IntOrPercent{value.get<int>(), false};
  }
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text.size() >= 2 && text.size() <= 4 && text.back() == '%' &&
        std::all_of(text.begin(), text.end() - 1, [](char c) { return c >= '0' && c <= '9'; })) {
      int percent = std::stoi(text.substr(0, text.size() - 1));
      if (percent >= 1 && percent <= 100) return IntOrPercent{percent, true};
    }
  }
  return std::unexpected("must be a positive integer or a percentage from 1% to 100%");
}

}  // namespace respool::policy
