#pragma once
// What the CEL tests share: the shared/ folder beside the checkout, and the system's zoneinfo.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "sandbox/cel/time.hpp"

namespace respool::test {

// A file of the shared/ folder that sits beside the checkout (CI clones the project next to
// it; a worktree under wt/ has it two levels up). "" when not found.
inline std::string shared_file(const std::string& relative) {
  for (const char* up : {"/../shared/", "/../../shared/"}) {
    std::string path = std::string(RESPOOL_SOURCE_DIR) + up + relative;
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

inline sandbox::cel::ZoneInfo system_zoneinfo() {
  return [](std::string_view name) -> std::optional<std::string> {
    std::ifstream in("/usr/share/zoneinfo/" + std::string(name), std::ios::binary);
    if (!in) return std::nullopt;
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
}

}  // namespace respool::test
