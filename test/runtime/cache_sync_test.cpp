// Why a cache has not synced, as the operator's start-up log and /readyz say it (issue 33).
#include <catch2/catch.hpp>

#include "operator/runtime/cache_sync.hpp"

using namespace respool;

namespace {

runtime::SyncFailure failure(std::string verb, kube::Error::Kind kind, int code,
                             std::string message) {
  kube::Error e;
  e.kind = kind;
  e.code = code;
  e.message = std::move(message);
  return {std::move(verb), std::move(e)};
}

const runtime::SyncHints hints{"https://10.0.0.1:443", "install it with kubectl apply -f crds/"};

}  // namespace

TEST_CASE("a CRD the server does not serve names the resource and how to install it",
          "[cache-sync]") {
  auto text = runtime::explain_unsynced(
      kube::resources::nodeoperations,
      failure("list", kube::Error::Kind::NotFound, 404, "the server could not find it"), hints);
  CHECK(text ==
        "nodeoperations.respool.io: not served by the API server (404 on list "
        "/apis/respool.io/v1alpha1/nodeoperations): its CustomResourceDefinition is not "
        "installed; install it with kubectl apply -f crds/");
}

TEST_CASE("a 404 on a built-in resource gives no CRD advice", "[cache-sync]") {
  auto text = runtime::explain_unsynced(
      kube::resources::daemonsets, failure("list", kube::Error::Kind::NotFound, 404, ""), hints);
  CHECK(text.starts_with("daemonsets.apps: not served by the API server (404 on list"));
  CHECK(text.find("CustomResourceDefinition") == std::string::npos);
}

TEST_CASE("a 403 names the verb, the resource and the account", "[cache-sync]") {
  auto text = runtime::explain_unsynced(
      kube::resources::nodes,
      failure("list", kube::Error::Kind::Forbidden, 403,
              "nodes is forbidden: User \"system:serviceaccount:respool-system:respool\" cannot "
              "list resource \"nodes\" in API group \"\" at the cluster scope"),
      hints);
  CHECK(text ==
        "nodes: forbidden (403): the account system:serviceaccount:respool-system:respool may "
        "not list nodes (API group \"\", at the cluster scope); grant list and watch on nodes in "
        "its ClusterRole (the Helm chart's RBAC grants them)");
  auto watch = runtime::explain_unsynced(
      kube::resources::pods, failure("watch", kube::Error::Kind::Forbidden, 403, "no user here"),
      hints);
  CHECK(watch.find("the operator's account may not watch pods (API group \"\", in every "
                   "namespace)") != std::string::npos);
}

TEST_CASE("a connection error names the server", "[cache-sync]") {
  auto text = runtime::explain_unsynced(
      kube::resources::nodes,
      failure("list", kube::Error::Kind::Network, 0, "connect: Connection refused"), hints);
  CHECK(text ==
        "nodes: cannot reach the API server at https://10.0.0.1:443 (list): connect: "
        "Connection refused");
}

TEST_CASE("other failures and no answer yet", "[cache-sync]") {
  CHECK(runtime::explain_unsynced(kube::resources::nodes, std::nullopt, hints) ==
        "nodes: waiting for the first list");
  CHECK(runtime::explain_unsynced(
            kube::resources::nodes,
            failure("list", kube::Error::Kind::Unauthorized, 401, "Unauthorized"), hints)
            .find("rejected the operator's credentials (401 on list)") != std::string::npos);
  CHECK(runtime::explain_unsynced(
            kube::resources::nodes,
            failure("list", kube::Error::Kind::ServerError, 500, "etcd is down"),
            hints) == "nodes: list failed: ServerError (500): etcd is down");
}

TEST_CASE("the account of a 403 message", "[cache-sync]") {
  kube::Error e;
  e.message = "pods is forbidden: User \"alice\" cannot list resource \"pods\"";
  CHECK(runtime::forbidden_user(e) == "alice");
  e.message = "forbidden";
  CHECK(runtime::forbidden_user(e).empty());
}
