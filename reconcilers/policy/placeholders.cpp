#include "reconcilers/policy/placeholders.hpp"

namespace respool::policy {

std::vector<Placeholder> find_placeholders(std::string_view text) {
  std::vector<Placeholder> out;
  for (std::size_t open = text.find("{{"); open != std::string_view::npos;
       open = text.find("{{", open)) {
    std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    std::string_view name = text.substr(open + 2, close - open - 2);
    while (!name.empty() && name.front() == ' ')
      name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ')
      name.remove_suffix(1);
    out.push_back({open, close + 2, std::string(name)});
    open = close + 2;
  }
  return out;
}

bool is_known_placeholder(std::string_view name) {
  return name == "pool" || name == "jobType" || name == "jobTypeLabel";
}

}  // namespace respool::policy
