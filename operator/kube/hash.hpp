#pragma once
// Combining hashes, for keys and values made of several parts.

#include <cstddef>

namespace respool::kube {

// Mixes one more hash into a running one (boost::hash_combine's constant, 64-bit).
inline std::size_t hash_mix(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace respool::kube
