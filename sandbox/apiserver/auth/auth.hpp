#pragma once
// Authentication: a bearer token (the sandbox's own, or one it issued), a client certificate
// signed by the sandbox's CA (CN user, O groups), else system:anonymous. Authorization is
// rbac/authorizer.hpp's.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operator/http/server.hpp"
#include "sandbox/apiserver/rbac/tokens.hpp"

namespace respool::sandbox {

class Engine;

struct User {
  std::string name;
  std::vector<std::string> groups;
  std::string uid;
  bool anonymous() const { return name == "system:anonymous"; }
};

// A ServiceAccount's user: system:serviceaccount:NS:NAME in system:serviceaccounts,
// system:serviceaccounts:NS and system:authenticated.
User service_account_user(const std::string& ns, const std::string& name, const std::string& uid);

class Authenticator {
 public:
  Authenticator(std::string admin_token, Engine& engine, const rbac::TokenIssuer& issuer)
      : admin_token_(std::move(admin_token)), engine_(engine), issuer_(issuer) {}
  // nullopt: credentials were presented and are wrong (401).
  std::optional<User> authenticate(const http::ServerRequest& request) const;
  // The user a bearer token stands for (TokenReview), if any.
  std::optional<User> token_user(std::string_view token) const;

 private:
  std::string admin_token_;
  Engine& engine_;
  const rbac::TokenIssuer& issuer_;
};

}  // namespace respool::sandbox
