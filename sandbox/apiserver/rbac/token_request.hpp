#pragma once
// POST serviceaccounts/NAME/token (TokenRequest, `kubectl create token`).

#include "sandbox/apiserver/rbac/tokens.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

// The TokenRequest answered: spec defaulted (audiences, expirationSeconds 3600) and
// status.token / status.expirationTimestamp; 404 when the ServiceAccount does not exist.
Result<OJson> issue_token(Engine& engine, const rbac::TokenIssuer& issuer, const std::string& ns,
                          const std::string& name, const Json& request);

}  // namespace respool::sandbox
