#include "sandbox/simulator/job_indexes.hpp"

#include <charconv>
#include <string_view>

#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {
namespace {

std::optional<int> decimal(std::string_view text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
    return std::nullopt;
  return v;
}

}  // namespace

std::optional<int> completion_index(const nlohmann::json& pod, int completions) {
  auto text = annotation(pod, kCompletionIndexKey);
  if (!text) return std::nullopt;
  auto v = decimal(*text);
  if (!v || *v >= completions) return std::nullopt;
  return v;
}

std::string format_indexes(const std::set<int>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    const int first = *it;
    int last = first;
    for (++it; it != indexes.end() && *it == last + 1; ++it)
      last = *it;
    if (!out.empty()) out += ',';
    out += std::to_string(first);
    if (last != first) out += '-' + std::to_string(last);
  }
  return out;
}

std::set<int> parse_indexes(const std::string& text, int completions) {
  std::set<int> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto dash = part.find('-');
    auto first = decimal(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : decimal(part.substr(dash + 1));
    if (!first || !last || *last < *first) continue;
    for (int i = *first; i <= *last && i < completions; ++i)
      out.insert(i);
  }
  return out;
}

std::set<int> first_pending_indexes(const std::set<int>& taken, int count, int completions) {
  std::set<int> out;
  for (int i = 0; i < completions && static_cast<int>(out.size()) < count; ++i)
    if (!taken.contains(i)) out.insert(i);
  return out;
}

}  // namespace respool::sandbox::sim
