#pragma once
// FNV-1a, 64 bits, as 16 hex digits: stable across processes and versions of respool (unlike
// std::hash), so that a restarted operator finds the names and hashes it wrote before.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace respool::reconcilers {

inline std::string stable_hash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace respool::reconcilers
