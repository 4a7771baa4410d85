#include "sandbox/apiserver/auth/auth.hpp"

#include <openssl/crypto.h>

#include <mutex>

#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {
namespace {

bool same(const std::string& a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

User service_account_user(const std::string& ns, const std::string& name, const std::string& uid) {
  return User{"system:serviceaccount:" + ns + ":" + name,
              {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
              uid};
}

std::optional<User> Authenticator::token_user(std::string_view token) const {
  if (!admin_token_.empty() && same(admin_token_, token)) {
    return User{"sandbox-admin", {"system:masters", "system:authenticated"}, ""};
  }
  auto claims = issuer_.verify(token);
  if (!claims) return std::nullopt;
  auto now =
      std::chrono::duration_cast<std::chrono::seconds>(engine_.clock().now().time_since_epoch())
          .count();
  if (claims->expires <= now) return std::nullopt;
  // The token is bound to the ServiceAccount: it stops working once that is gone.
  std::lock_guard lock(engine_.store().mutex());
  const StoredObject* sa =
      engine_.store().get("serviceaccounts", Store::key(claims->ns, claims->service_account));
  if (!sa || object_uid(*sa->obj()) != claims->uid) return std::nullopt;
  return service_account_user(claims->ns, claims->service_account, claims->uid);
}

std::optional<User> Authenticator::authenticate(const http::ServerRequest& request) const {
  if (request.client_certificate) {
    User u{request.client_certificate->common_name, request.client_certificate->organizations, ""};
    u.groups.push_back("system:authenticated");
    return u;
  }
  auto header = request.headers.get("Authorization");
  if (!header) return User{"system:anonymous", {"system:unauthenticated"}, ""};
  std::string_view value = *header;
  constexpr std::string_view bearer = "Bearer ";
  if (value.size() > bearer.size() && http::iequals(value.substr(0, bearer.size()), bearer)) {
    std::string_view presented = value.substr(bearer.size());
    while (!presented.empty() && presented.front() == ' ')
      presented.remove_prefix(1);
    return token_user(presented);
  }
  return std::nullopt;
}

}  // namespace respool::sandbox
