#pragma once
// Where the API server is and how to authenticate to it: from a kubeconfig file or from the
// pod's service account (in cluster), as client-go's clientcmd and rest.InClusterConfig do.

#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "operator/http/client.hpp"

namespace respool::kube {

struct ClusterConfig {
  std::string server;                // "https://127.0.0.1:6443"
  http::ClientTls tls;               // CA, insecure, client certificate
  std::string token;                 // bearer token, fixed
  std::filesystem::path token_file;  // bearer token read from a file, re-read when it changes
  std::string context;               // the kubeconfig context used, for messages
};

struct ConfigSource {
  std::optional<std::filesystem::path> kubeconfig;  // --kubeconfig
  std::optional<std::string> context;               // --context
};

// Resolves as client-go does: --kubeconfig, else $KUBECONFIG (first existing file of the list),
// else in cluster (KUBERNETES_SERVICE_HOST/PORT and the service-account files), else
// ~/.kube/config. Errors name the file and the field; exec plugins and auth providers are
// refused with a clear "not supported".
std::expected<ClusterConfig, std::string> resolve_config(const ConfigSource& source);

std::expected<ClusterConfig, std::string> load_kubeconfig(
    const std::filesystem::path& path, const std::optional<std::string>& context);

// The in-cluster configuration; `root` replaces "/" for the service-account files (tests).
std::expected<ClusterConfig, std::string> in_cluster_config(
    const std::filesystem::path& root = "/");

}  // namespace respool::kube
