#pragma once
// The catalog's template placeholders: {{pool}}, {{jobType}}, {{jobTypeLabel}}, with optional
// spaces inside the braces ({{ pool }}).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace respool::policy {

struct Placeholder {
  std::size_t begin = 0;  // offset of "{{"
  std::size_t end = 0;    // offset just past "}}"
  std::string name;       // trimmed
};

// Every {{...}} in `text`, in order. An unclosed "{{" is not a placeholder.
std::vector<Placeholder> find_placeholders(std::string_view text);

bool is_known_placeholder(std::string_view name);

}  // namespace respool::policy
