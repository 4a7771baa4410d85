#pragma once
// ServiceAccount tokens as TokenRequest issues them: JWTs (HS256 with a key of this server's,
// where a real server signs RS256 with its service-account key) carrying the real claims (iss,
// sub, aud, exp, iat, nbf, jti, kubernetes.io.{namespace, serviceaccount}), expiring on the
// injected clock.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operator/runtime/clock.hpp"

namespace respool::sandbox::rbac {

inline constexpr const char* kIssuer = "https://kubernetes.default.svc.cluster.local";

struct TokenClaims {
  std::string ns, service_account, uid, jti;
  std::vector<std::string> audiences;
  std::int64_t expires = 0;  // unix seconds
};

class TokenIssuer {
 public:
  TokenIssuer();  // a random signing key
  std::string issue(const TokenClaims& claims, runtime::TimePoint now) const;
  // The claims of a token this issuer signed (expiry not checked), else nullopt.
  std::optional<TokenClaims> verify(std::string_view token) const;

 private:
  std::string sign(std::string_view data) const;
  std::string key_;
};

}  // namespace respool::sandbox::rbac
