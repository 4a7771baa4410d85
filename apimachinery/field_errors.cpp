#include "apimachinery/field_errors.hpp"

#include <algorithm>

#include "apimachinery/go_format.hpp"

namespace respool::apimachinery {

std::string go_string_slice(std::span<const std::string> values) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += go_quote(values[i]);
  }
  out += "}";
  return out;
}

std::string invalid_value_error(std::string_view path, std::string_view quoted_value,
                                std::string_view detail) {
  std::string out(path);
  out += ": Invalid value: ";
  out += quoted_value;
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

std::string aggregate_errors(const std::vector<std::string>& messages) {
  if (messages.size() == 1) return messages.front();
  std::vector<std::string> seen;
  for (const std::string& message : messages) {
    if (std::ranges::find(seen, message) == seen.end()) seen.push_back(message);
  }
  if (seen.size() == 1) return seen.front();
  std::string out = "[";
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) out += ", ";
    out += seen[i];
  }
  return out + "]";
}

}  // namespace respool::apimachinery
