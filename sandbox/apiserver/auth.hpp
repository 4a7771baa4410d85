#pragma once
// Authentication (bearer token, client certificate, else system:anonymous) and the little
// authorization the sandbox does: authenticated users may do everything; anonymous requests
// get what RBAC's system:public-info-viewer grants (/version, /healthz, /livez, /readyz).

#include <optional>
#include <string>
#include <vector>

#include "operator/http/server.hpp"
#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/request_info.hpp"

namespace respool::sandbox {

struct User {
  std::string name;
  std::vector<std::string> groups;
  bool anonymous() const { return name == "system:anonymous"; }
};

// nullopt: credentials were presented and are wrong (401).
std::optional<User> authenticate(const http::ServerRequest& request, const std::string& token);

// A 403 Status when the user may not do this, as RBAC words it.
std::optional<ApiError> authorize(const User& user, const RequestInfo& info);

}  // namespace respool::sandbox
