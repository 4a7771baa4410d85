#pragma once
// Discovery: /version, /api, /apis (legacy and aggregated v2/v2beta1), /apis/GROUP and the
// per-group-version APIResourceLists, built from the registry.

#include <optional>
#include <string>

#include "operator/http/message.hpp"
#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox {

// The answer for a discovery path, or nullopt when the path is not a discovery path this
// registry serves (then it is 404 page not found).
std::optional<http::Response> serve_discovery(const Registry& registry, const std::string& path,
                                              const http::Request& request,
                                              const std::string& server_address);

http::Response serve_version();

}  // namespace respool::sandbox
