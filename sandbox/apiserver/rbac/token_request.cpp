#include "sandbox/apiserver/rbac/token_request.hpp"

#include <mutex>

#include "apimachinery/time.hpp"

namespace respool::sandbox {

Result<OJson> issue_token(Engine& engine, const rbac::TokenIssuer& issuer, const std::string& ns,
                          const std::string& name, const Json& request) {
  if (!request.is_object()) return std::unexpected(bad_request("the body must be a TokenRequest"));
  Json spec = request.value("spec", Json::object());
  if (!spec.is_object()) spec = Json::object();
  std::int64_t seconds = 3600;
  if (spec.contains("expirationSeconds") && spec["expirationSeconds"].is_number_integer()) {
    seconds = spec["expirationSeconds"].get<std::int64_t>();
  }
  if (seconds < 600) {
    return std::unexpected(invalid("authentication.k8s.io", "TokenRequest", name,
                                   {field_invalid("spec.expirationSeconds", Json(seconds),
                                                  "may not specify a duration less than 10 "
                                                  "minutes")}));
  }
  if (!spec.contains("audiences") || !spec["audiences"].is_array() || spec["audiences"].empty()) {
    spec["audiences"] = Json::array({rbac::kIssuer});
  }
  std::string uid;
  {
    std::lock_guard lock(engine.store().mutex());
    const StoredObject* sa = engine.store().get("serviceaccounts", Store::key(ns, name));
    if (!sa) return std::unexpected(not_found({"", "serviceaccounts"}, name));
    uid = object_uid(*sa->obj());
  }
  runtime::TimePoint now = engine.clock().now();
  runtime::TimePoint expires = now + std::chrono::seconds(seconds);
  rbac::TokenClaims claims;
  claims.ns = ns;
  claims.service_account = name;
  claims.uid = uid;
  claims.jti = new_uid();
  claims.expires =
      std::chrono::duration_cast<std::chrono::seconds>(expires.time_since_epoch()).count();
  for (const Json& a : spec["audiences"]) {
    if (a.is_string()) claims.audiences.push_back(a.get<std::string>());
  }
  spec["expirationSeconds"] = seconds;
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  OJson out = {
      {"kind", "TokenRequest"},
      {"apiVersion", "authentication.k8s.io/v1"},
      {"metadata",
       {{"name", name}, {"namespace", ns}, {"creationTimestamp", apimachinery::format_time(now)}}},
      {"spec", OJson::parse(spec.dump())},
      {"status",
       {{"token", issuer.issue(claims, now)},
        {"expirationTimestamp", apimachinery::format_time(expires)}}}};
  return out;
}

}  // namespace respool::sandbox
