#pragma once
// Standard base64 (RFC 4648, with padding), as kubeconfig *-data fields and Secrets use it.

#include <optional>
#include <string>
#include <string_view>

namespace respool::kube {

std::string base64_encode(std::string_view data);
// Ignores whitespace; std::nullopt for any other character outside the alphabet.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace respool::kube
