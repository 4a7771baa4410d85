#pragma once
// Why a cache has not synced, worded for the person who must act (issue 33). controller-runtime
// says "timed out waiting for cache to be synced for Kind"; respool names the resource, the
// request that failed and what to do: install the CRD, grant the verb, reach the server.

#include <optional>
#include <string>
#include <vector>

#include "operator/kube/error.hpp"
#include "operator/kube/resource.hpp"

namespace respool::runtime {

// The last list or watch of an informer that failed, until a list succeeds.
struct SyncFailure {
  std::string verb;  // "list" or "watch"
  kube::Error error;
};

// What the explanations say beyond the error itself.
struct SyncHints {
  std::string server;       // the API server's address, for connection errors
  std::string install_crd;  // how to install a CustomResourceDefinition that is not served
};

// One cache's reason, e.g. "nodeoperations.respool.io: not served by the API server (404): its
// CustomResourceDefinition is not installed; install it with kubectl apply -f crds/".
std::string explain_unsynced(const kube::Resource& resource,
                             const std::optional<SyncFailure>& failure, const SyncHints& hints);

// The account a 403's message names (`User "system:serviceaccount:ns:sa" cannot ...`), or "".
std::string forbidden_user(const kube::Error& error);

}  // namespace respool::runtime
