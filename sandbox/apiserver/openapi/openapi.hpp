#pragma once
// OpenAPI as kubectl apply, explain and validation read it: the /openapi/v3 index (text/plain),
// one v3 document per group-version, and the /openapi/v2 document (JSON). Custom resources get
// their CRD schema (as the CRD handler publishes it); built-in kinds their full definitions from
// the Kubernetes API's type table (openapi/schemas.hpp), descriptions included.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "operator/http/message.hpp"
#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox {

// The OpenAPI v3 document of one group-version (exposed for tests).
OJson openapi_document(const Registry& registry, const std::string& group,
                       const std::string& version);
// The OpenAPI v2 (Swagger 2.0) document of everything served (exposed for tests).
OJson openapi_v2_document(const Registry& registry);

// Serves /openapi/...; documents are built once per registry generation (kubectl asks for the
// index on every apply and explain).
class OpenApiDocuments {
 public:
  // The answer for a path under /openapi, or nullopt for 404 page not found.
  std::optional<http::Response> serve(const Registry& registry, const http::Target& target,
                                      std::string_view accept);

 private:
  struct Document {
    std::string body;
    std::string hash;  // SHA-512, upper-case hex
  };
  const Document& document(const Registry& registry, const std::string& key);

  std::mutex mu_;
  std::uint64_t generation_ = 0;
  std::map<std::string, Document> documents_;  // "api/v1", "apis/apps/v1", "v2"
};

}  // namespace respool::sandbox
