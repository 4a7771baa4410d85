#include "sandbox/simulator/token_secrets.hpp"

#include "apimachinery/base64.hpp"
#include "operator/kube/error.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_io.hpp"

namespace respool::sandbox::sim {

using runtime::ReconcileResult;

namespace {

constexpr const char* kNameAnnotation = "kubernetes.io/service-account.name";
constexpr const char* kUidAnnotation = "kubernetes.io/service-account.uid";
constexpr std::int64_t kTokenSeconds = 10LL * 365 * 24 * 3600;

}  // namespace

TokenSecrets::TokenSecrets(Cluster& cluster, ObjectInformer& secrets,
                           ObjectInformer& service_accounts, std::string ca_pem)
    : SimController(cluster, "sandbox-tokens", 1),
      secrets_(secrets),
      service_accounts_(service_accounts),
      ca_pem_(std::move(ca_pem)) {
  add_namespace_index(secrets_);
  controller_.watch<kube::Unstructured>(secrets_);
  // A ServiceAccount's changes (made, gone) concern the token Secrets that name it.
  controller_.watch<kube::Unstructured>(service_accounts_, [this](const kube::Unstructured& sa) {
    std::vector<std::string> keys;
    for (const auto& s : secrets_.store().by_index(kByNamespace, sa.meta.namespace_.view()))
      if (annotation(s->object, kNameAnnotation) == sa.meta.name) keys.push_back(s->meta.key());
    return keys;
  });
}

std::expected<std::string, std::string> TokenSecrets::request_token(const std::string& ns,
                                                                    const std::string& sa) {
  const Json body = {{"apiVersion", "authentication.k8s.io/v1"},
                     {"kind", "TokenRequest"},
                     {"spec", {{"expirationSeconds", kTokenSeconds}}}};
  auto response =
      cluster_.client.request("POST", kube::resources::serviceaccounts.item_path(ns, sa, "token"),
                              body.dump(), "application/json");
  if (!response) return std::unexpected(response.error().describe());
  if (response->status != 201 && response->status != 200)
    return std::unexpected(kube::error_from_response(response->status, response->body).describe());
  const Json answer = Json::parse(response->body, nullptr, false);
  const std::string token = string_at(answer, {"status", "token"});
  if (token.empty()) return std::unexpected("TokenRequest answered no token");
  return token;
}

std::expected<ReconcileResult, std::string> TokenSecrets::reconcile(const std::string& key) {
  ObjectPtr cached = secrets_.store().get(key);
  if (!cached || cached->meta.deletion_timestamp) return ReconcileResult::done();
  const Json& secret = cached->object;
  if (string_at(secret, {"type"}) != kServiceAccountTokenType) return ReconcileResult::done();
  const std::string ns = cached->meta.namespace_.str();
  const std::string sa_name = annotation(secret, kNameAnnotation).value_or("");
  if (sa_name.empty()) return ReconcileResult::done();
  // The cache may not show a ServiceAccount made just now: only the API server can say it is
  // gone.
  std::string sa_uid;
  if (ObjectPtr sa = service_accounts_.store().get(ns + "/" + sa_name)) {
    sa_uid = sa->meta.uid.str();
  } else {
    auto live = cluster_.client.get(kube::resources::serviceaccounts, ns, sa_name);
    if (live) {
      sa_uid = string_at(*live, {"metadata", "uid"});
    } else if (!live.error().is(kube::Error::Kind::NotFound)) {
      return std::unexpected("serviceaccount " + ns + "/" + sa_name + ": " +
                             live.error().describe());
    }
  }
  const std::string bound = annotation(secret, kUidAnnotation).value_or("");
  if (sa_uid.empty() || (!bound.empty() && bound != sa_uid)) {
    kube::DeleteOptions options;
    options.precondition_uid = cached->meta.uid.str();
    auto removed = cluster_.client.remove(kube::resources::secrets, ns, cached->meta.name, options);
    if (!removed && !removed.error().is(kube::Error::Kind::NotFound) &&
        !removed.error().is(kube::Error::Kind::Conflict))
      return std::unexpected("secret " + key + ": " + removed.error().describe());
    return ReconcileResult::done();
  }
  const Json& data = at_path(secret, {"data"});
  const bool filled = data.is_object() && data.contains("token") && data.contains("ca.crt") &&
                      data.contains("namespace") && bound == sa_uid;
  if (filled) return ReconcileResult::done();
  Json next = secret;
  if (!next["data"].is_object()) next["data"] = Json::object();
  if (!data.is_object() || !data.contains("token")) {
    auto token = request_token(ns, sa_name);
    if (!token) return std::unexpected("secret " + key + ": token: " + token.error());
    next["data"]["token"] = apimachinery::base64_encode(*token);
  }
  next["data"]["ca.crt"] = apimachinery::base64_encode(ca_pem_);
  next["data"]["namespace"] = apimachinery::base64_encode(ns);
  next["metadata"]["annotations"][kUidAnnotation] = sa_uid;
  auto written = cluster_.client.update(kube::resources::secrets, ns, next);
  if (!written && written.error().is(kube::Error::Kind::Conflict)) return ReconcileResult{true};
  if (!written && !written.error().is(kube::Error::Kind::NotFound))
    return std::unexpected("secret " + key + ": " + written.error().describe());
  return ReconcileResult::done();
}

}  // namespace respool::sandbox::sim
