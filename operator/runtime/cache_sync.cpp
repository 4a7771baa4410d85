#include "operator/runtime/cache_sync.hpp"

namespace respool::runtime {

std::string forbidden_user(const kube::Error& error) {
  const std::string marker = "User \"";
  auto at = error.message.find(marker);
  if (at == std::string::npos) return "";
  at += marker.size();
  auto end = error.message.find('"', at);
  return end == std::string::npos ? "" : error.message.substr(at, end - at);
}

namespace {

std::string scope_of(const kube::Resource& resource) {
  return resource.namespaced ? "in every namespace" : "at the cluster scope";
}

std::string forbidden(const kube::Resource& resource, const SyncFailure& failure) {
  std::string account = forbidden_user(failure.error);
  std::string who = account.empty() ? "the operator's account" : "the account " + account;
  return resource.qualified_name() + ": forbidden (403): " + who + " may not " + failure.verb +
         " " + resource.plural + " (API group \"" + resource.group + "\", " + scope_of(resource) +
         "); grant list and watch on " + resource.qualified_name() +
         " in its ClusterRole (the Helm chart's RBAC grants them)";
}

}  // namespace

std::string explain_unsynced(const kube::Resource& resource,
                             const std::optional<SyncFailure>& failure, const SyncHints& hints) {
  const std::string name = resource.qualified_name();
  if (!failure) return name + ": waiting for the first list";
  const kube::Error& e = failure->error;
  using Kind = kube::Error::Kind;
  switch (e.kind) {
    case Kind::NotFound:
      return name + ": not served by the API server (404 on " + failure->verb + " " +
             resource.collection_path() + ")" +
             (resource.group.empty() || resource.group.find('.') == std::string::npos
                  ? std::string()
                  : ": its CustomResourceDefinition is not installed; " +
                        (hints.install_crd.empty() ? std::string("install it")
                                                   : hints.install_crd));
    case Kind::Forbidden:
      return forbidden(resource, *failure);
    case Kind::Unauthorized:
      return name + ": the API server rejected the operator's credentials (401 on " +
             failure->verb + "): " + e.message +
             "; check the ServiceAccount token or the kubeconfig's user";
    case Kind::Network:
      return name + ": cannot reach the API server" +
             (hints.server.empty() ? std::string() : " at " + hints.server) + " (" + failure->verb +
             "): " + e.message;
    default:
      return name + ": " + failure->verb + " failed: " + e.describe();
  }
}

}  // namespace respool::runtime
