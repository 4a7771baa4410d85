#pragma once
// Standard base64 (RFC 4648, with padding), as Go's encoding/base64.StdEncoding writes and reads
// it: []byte fields in JSON (kubeconfig *-data, Secret data, OpenAPI format "byte").

#include <optional>
#include <string>
#include <string_view>

namespace respool::apimachinery {

std::string base64_encode(std::string_view data);
// base64.StdEncoding.DecodeString: line breaks (\r, \n) are skipped; anything else outside the
// alphabet, missing or misplaced padding, or a length that is not a multiple of four is an error
// (std::nullopt). Like Go's non-strict decoder, unused bits of the last group may be set.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace respool::apimachinery
