// Impersonation (Impersonate-User, Impersonate-Group, Impersonate-Uid: kubectl --as, --as-group):
// allowed when the requester may `impersonate` the users, serviceaccounts, groups and uids
// named, as the real server's impersonation filter checks them.

#include "sandbox/apiserver/rbac/authorizer.hpp"

namespace respool::sandbox {

std::expected<User, ApiError> Authorizer::impersonate(const http::Headers& headers,
                                                      const User& requester) const {
  std::optional<std::string> name, uid;
  std::vector<std::string> groups;
  for (const auto& [key, value] : headers.fields()) {
    if (http::iequals(key, "Impersonate-User")) name = value;
    if (http::iequals(key, "Impersonate-Group")) groups.push_back(value);
    if (http::iequals(key, "Impersonate-Uid")) uid = value;
  }
  if (!name) {
    if (groups.empty() && !uid) return requester;
    return std::unexpected(
        bad_request("requested impersonation of groups or uid without "
                    "impersonating a user"));
  }
  auto deny = [&](const Attributes& a) {
    std::string msg = "User \"" + requester.name + "\" cannot impersonate resource \"" +
                      a.resource + "\" in API group \"" + a.group + "\"";
    msg += a.ns.empty() ? " at the cluster scope" : " in the namespace \"" + a.ns + "\"";
    return forbidden({a.group, a.resource}, a.name, msg);
  };
  const std::string sa_prefix = "system:serviceaccount:";
  User user{*name, groups, uid.value_or("")};
  Attributes a{true, "impersonate", "", "", "users", "", "", *name, ""};
  if (name->rfind(sa_prefix, 0) == 0) {
    std::string rest = name->substr(sa_prefix.size());
    auto colon = rest.find(':');
    if (colon != std::string::npos) {
      a.resource = "serviceaccounts";
      a.ns = rest.substr(0, colon);
      a.name = rest.substr(colon + 1);
      if (groups.empty()) {
        user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + a.ns};
      }
    }
  }
  if (!authorize(requester, a).allowed) return std::unexpected(deny(a));
  for (const std::string& g : groups) {
    Attributes ga{true, "impersonate", "", "", "groups", "", "", g, ""};
    if (!authorize(requester, ga).allowed) return std::unexpected(deny(ga));
  }
  if (uid) {
    Attributes ua{true, "impersonate", "authentication.k8s.io", "", "uids", "", "", *uid, ""};
    if (!authorize(requester, ua).allowed) return std::unexpected(deny(ua));
  }
  bool anonymous = *name == "system:anonymous";
  const char* implied = anonymous ? "system:unauthenticated" : "system:authenticated";
  if (std::find(user.groups.begin(), user.groups.end(), implied) == user.groups.end()) {
    user.groups.push_back(implied);
  }
  return user;
}

}  // namespace respool::sandbox
