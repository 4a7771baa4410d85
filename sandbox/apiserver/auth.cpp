#include "sandbox/apiserver/auth.hpp"

#include <openssl/crypto.h>

namespace respool::sandbox {
namespace {

bool same(const std::string& a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::optional<User> authenticate(const http::ServerRequest& request, const std::string& token) {
  if (request.client_certificate) {
    User u{request.client_certificate->common_name, request.client_certificate->organizations};
    u.groups.push_back("system:authenticated");
    return u;
  }
  auto header = request.headers.get("Authorization");
  if (!header) return User{"system:anonymous", {"system:unauthenticated"}};
  std::string_view value = *header;
  constexpr std::string_view bearer = "Bearer ";
  if (value.size() > bearer.size() && http::iequals(value.substr(0, bearer.size()), bearer)) {
    std::string_view presented = value.substr(bearer.size());
    while (!presented.empty() && presented.front() == ' ')
      presented.remove_prefix(1);
    if (!token.empty() && same(token, presented)) {
      return User{"sandbox-admin", {"system:masters", "system:authenticated"}};
    }
  }
  return std::nullopt;
}

std::optional<ApiError> authorize(const User& user, const RequestInfo& info) {
  if (!user.anonymous()) return std::nullopt;
  if (!info.resource_request) {
    for (const char* open : {"/version", "/healthz", "/livez", "/readyz"}) {
      std::string p = open;
      if (info.path == p || info.path == p + "/" || info.path.rfind(p + "/", 0) == 0) {
        if (info.verb == "get" || info.verb == "head") return std::nullopt;
      }
    }
    std::string verb = info.verb == "head" ? "get" : info.verb;
    return forbidden({}, "",
                     "User \"" + user.name + "\" cannot " + verb + " path \"" + info.path + "\"");
  }
  std::string resource = info.resource;
  if (!info.subresource.empty()) resource += "/" + info.subresource;
  std::string msg = "User \"" + user.name + "\" cannot " + info.verb + " resource \"" + resource +
                    "\" in API group \"" + info.group + "\"";
  msg += info.ns.empty() ? " at the cluster scope" : " in the namespace \"" + info.ns + "\"";
  return forbidden({info.group, info.resource}, info.name, msg);
}

}  // namespace respool::sandbox
