#include "cmd/kubectl-respool/view/table.hpp"

#include <algorithm>

namespace respool::kubectl {
namespace {

// Display width in code points: the cells may hold sparkline blocks (3 UTF-8 bytes each).
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::ranges::count_if(
      s, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string cell(const std::vector<std::string>& row, std::size_t i) {
  if (i >= row.size() || row[i].empty()) return "<none>";
  return row[i];
}

}  // namespace

std::string render(const Table& table) {
  if (table.rows.empty()) return "";
  std::vector<std::size_t> widths;
  for (const auto& h : table.headers)
    widths.push_back(width(h));
  for (const auto& row : table.rows)
    for (std::size_t i = 0; i < widths.size(); ++i)
      widths[i] = std::max(widths[i], width(cell(row, i)));
  std::string out;
  auto line = [&](auto&& text_of) {
    for (std::size_t i = 0; i < widths.size(); ++i) {
      std::string text = text_of(i);
      out += text;
      if (i + 1 < widths.size()) out += std::string(widths[i] - width(text) + 3, ' ');
    }
    out += '\n';
  };
  line([&](std::size_t i) { return table.headers[i]; });
  for (const auto& row : table.rows)
    line([&](std::size_t i) { return cell(row, i); });
  return out;
}

std::string human_duration(std::chrono::seconds d) {
  using std::to_string;
  long long s = d.count();
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return to_string(s) + "s";
  long long minutes = s / 60;
  if (minutes < 10) return to_string(minutes) + "m" + (s % 60 ? to_string(s % 60) + "s" : "");
  if (minutes < 180) return to_string(minutes) + "m";
  long long hours = minutes / 60;
  if (hours < 8)
    return to_string(hours) + "h" + (minutes % 60 ? to_string(minutes % 60) + "m" : "");
  if (hours < 48) return to_string(hours) + "h";
  if (hours < 24 * 8)
    return to_string(hours / 24) + "d" + (hours % 24 ? to_string(hours % 24) + "h" : "");
  if (hours < 24 * 365 * 2) return to_string(hours / 24) + "d";
  long long days = hours / 24;
  if (hours < 24 * 365 * 8)
    return to_string(days / 365) + "y" + (days % 365 ? to_string(days % 365) + "d" : "");
  return to_string(days / 365) + "y";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : sep) + item;
  return out;
}

}  // namespace respool::kubectl
