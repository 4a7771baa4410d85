#include "sandbox/simulator/template_hash.hpp"

namespace respool::sandbox::sim {

std::uint32_t fnv1a32(std::string_view bytes) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

std::string safe_encode(std::string_view text) {
  static constexpr std::string_view alphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text)
    out += alphanums[c % alphanums.size()];
  return out;
}

std::string template_hash(const nlohmann::json& pod_template) {
  return safe_encode(std::to_string(fnv1a32(pod_template.dump())));
}

}  // namespace respool::sandbox::sim
