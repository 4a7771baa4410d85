#pragma once
// The cluster as kubectl reaches it: the kubeconfig resolved in kubectl's order, the context's
// namespace, the project's API client, and API errors worded as kubectl words them.

#include <expected>
#include <memory>
#include <string>

#include "cmd/kubectl-respool/view/args.hpp"
#include "operator/kube/client.hpp"

namespace respool::kubectl {

struct Cluster {
  std::unique_ptr<kube::Client> client;
  std::string ns;  // -n, else the context's namespace, else "default"
};

// kubectl's order: --kubeconfig, $KUBECONFIG, ~/.kube/config, then in cluster. The error is
// the whole line kubectl would print.
std::expected<Cluster, std::string> connect(const Invocation& inv);

// "Error from server (NotFound): resourcepools.respool.io \"x\" not found", or for no answer
// "Unable to connect to the server: ...".
std::string describe(const kube::Error& error);

}  // namespace respool::kubectl
