#pragma once
// The controller-revision-hash of a pod template, shaped as the DaemonSet controller's
// (controller.ComputeHash: a 32-bit FNV-1a, printed in decimal, then rand.SafeEncodeString so
// that it reads like "5d8f7c9b6"). The input is the template's canonical JSON (keys sorted), so
// equal templates hash equal and any change to the template changes the hash.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace respool::sandbox::sim {

std::uint32_t fnv1a32(std::string_view bytes);
// rand.SafeEncodeString: each byte becomes one of "bcdfghjklmnpqrstvwxz2456789" (no vowels, no
// look-alikes), so the result never spells words and is a valid label value.
std::string safe_encode(std::string_view text);
std::string template_hash(const nlohmann::json& pod_template);

}  // namespace respool::sandbox::sim
