#pragma once
// OpenAPI v3 as kubectl apply and explain read it: the /openapi/v3 index (text/plain) and one
// document per group-version. Custom resources get their CRD schema (as the CRD handler
// publishes it); built-in kinds a minimal schema with their group-version-kind.

#include <optional>
#include <string>

#include "operator/http/message.hpp"
#include "sandbox/apiserver/registry.hpp"

namespace respool::sandbox {

// The answer for a path under /openapi, or nullopt for 404 page not found.
std::optional<http::Response> serve_openapi(const Registry& registry, const http::Target& target);

// The OpenAPI v3 document of one group-version (exposed for tests).
OJson openapi_document(const Registry& registry, const std::string& group,
                       const std::string& version);

}  // namespace respool::sandbox
