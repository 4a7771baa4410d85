#include "operator/kube/config.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "apimachinery/base64.hpp"

namespace respool::kube {

namespace fs = std::filesystem;

namespace {

std::expected<std::string, std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected("cannot read " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A named entry of clusters/contexts/users, keeping the file it came from so that relative
// paths resolve against that file's folder, as clientcmd does.
struct Entry {
  YAML::Node node;
  fs::path dir;
};

struct Merged {
  std::string current_context;
  std::map<std::string, Entry> clusters, contexts, users;
};

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node v = node[key];
  if (!v || !v.IsScalar()) return {};
  return v.as<std::string>();
}

std::expected<void, std::string> merge_file(const fs::path& path, Merged& merged) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    return std::unexpected(path.string() + ": not a valid kubeconfig: " + e.what());
  }
  if (!root.IsMap()) return std::unexpected(path.string() + ": not a valid kubeconfig: not a map");
  fs::path dir = path.parent_path();
  if (merged.current_context.empty()) merged.current_context = scalar(root, "current-context");
  // First definition of a name wins, as when clientcmd merges the files of $KUBECONFIG.
  auto collect = [&](const char* list, const char* field,
                     std::map<std::string, Entry>& into) -> std::expected<void, std::string> {
    const YAML::Node items = root[list];
    if (!items) return {};
    if (!items.IsSequence()) return std::unexpected(path.string() + ": " + list + " is not a list");
    for (const auto& item : items) {
      std::string name = scalar(item, "name");
      if (name.empty())
        return std::unexpected(path.string() + ": an entry of " + list + " has no name");
      if (!into.contains(name)) into.emplace(name, Entry{item[field], dir});
    }
    return {};
  };
  if (auto r = collect("clusters", "cluster", merged.clusters); !r) return r;
  if (auto r = collect("contexts", "context", merged.contexts); !r) return r;
  if (auto r = collect("users", "user", merged.users); !r) return r;
  return {};
}

// "certificate-authority-data" or the file named by "certificate-authority".
std::expected<std::string, std::string> data_or_file(const Entry& entry, const char* data_key,
                                                     const char* file_key,
                                                     const std::string& where) {
  std::string data = scalar(entry.node, data_key);
  if (!data.empty()) {
    auto decoded = apimachinery::base64_decode(data);
    if (!decoded) return std::unexpected(where + "." + data_key + " is not valid base64");
    return *decoded;
  }
  std::string file = scalar(entry.node, file_key);
  if (file.empty()) return std::string();
  fs::path p(file);
  if (p.is_relative()) p = entry.dir / p;
  auto content = read_file(p);
  if (!content) return std::unexpected(where + "." + file_key + ": " + content.error());
  return *content;
}

std::expected<ClusterConfig, std::string> from_merged(const Merged& merged,
                                                      const std::optional<std::string>& context,
                                                      const std::string& origin) {
  std::string ctx_name = context.value_or(merged.current_context);
  if (ctx_name.empty()) return std::unexpected(origin + ": no current-context and no --context");
  auto ctx = merged.contexts.find(ctx_name);
  if (ctx == merged.contexts.end()) {
    return std::unexpected(origin + ": context \"" + ctx_name + "\" not found");
  }
  std::string cluster_name = scalar(ctx->second.node, "cluster");
  std::string user_name = scalar(ctx->second.node, "user");
  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end()) {
    return std::unexpected(origin + ": cluster \"" + cluster_name + "\" of context \"" + ctx_name +
                           "\" not found");
  }
  ClusterConfig config;
  config.context = ctx_name;
  const std::string cwhere = "clusters[" + cluster_name + "].cluster";
  config.server = scalar(cluster->second.node, "server");
  if (config.server.empty()) return std::unexpected(origin + ": " + cwhere + ".server is empty");
  auto ca =
      data_or_file(cluster->second, "certificate-authority-data", "certificate-authority", cwhere);
  if (!ca) return std::unexpected(origin + ": " + ca.error());
  config.tls.ca_pem = *ca;
  config.tls.insecure_skip_verify =
      scalar(cluster->second.node, "insecure-skip-tls-verify") == "true";
  config.tls.server_name = scalar(cluster->second.node, "tls-server-name");
  if (!scalar(cluster->second.node, "proxy-url").empty()) {
    return std::unexpected(origin + ": " + cwhere + ".proxy-url is not supported");
  }

  if (user_name.empty()) return config;  // anonymous
  auto user = merged.users.find(user_name);
  if (user == merged.users.end()) {
    return std::unexpected(origin + ": user \"" + user_name + "\" of context \"" + ctx_name +
                           "\" not found");
  }
  const std::string uwhere = "users[" + user_name + "].user";
  const YAML::Node& u = user->second.node;
  if (u && u["exec"]) {
    return std::unexpected(origin + ": " + uwhere +
                           ".exec: exec credential plugins are not supported by respool; use a "
                           "token, a tokenFile or a client certificate");
  }
  if (u && u["auth-provider"]) {
    return std::unexpected(origin + ": " + uwhere + ".auth-provider is not supported by respool");
  }
  if (!scalar(u, "username").empty() || !scalar(u, "password").empty()) {
    return std::unexpected(origin + ": " + uwhere + ": basic authentication is not supported");
  }
  config.token = scalar(u, "token");
  std::string token_file = scalar(u, "tokenFile");
  if (!token_file.empty() && config.token.empty()) {
    fs::path p(token_file);
    if (p.is_relative()) p = user->second.dir / p;
    config.token_file = p;
    if (auto t = read_file(p); !t)
      return std::unexpected(origin + ": " + uwhere + ".tokenFile: " + t.error());
  }
  auto cert = data_or_file(user->second, "client-certificate-data", "client-certificate", uwhere);
  if (!cert) return std::unexpected(origin + ": " + cert.error());
  auto key = data_or_file(user->second, "client-key-data", "client-key", uwhere);
  if (!key) return std::unexpected(origin + ": " + key.error());
  if (cert->empty() != key->empty()) {
    return std::unexpected(origin + ": " + uwhere +
                           ": a client certificate needs both the certificate and the key");
  }
  config.tls.cert_pem = *cert;
  config.tls.key_pem = *key;
  return config;
}

}  // namespace

std::expected<ClusterConfig, std::string> load_kubeconfig(
    const fs::path& path, const std::optional<std::string>& context) {
  if (!fs::exists(path)) return std::unexpected("kubeconfig " + path.string() + " does not exist");
  Merged merged;
  if (auto r = merge_file(path, merged); !r) return std::unexpected(r.error());
  return from_merged(merged, context, path.string());
}

std::expected<ClusterConfig, std::string> in_cluster_config(const fs::path& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !port || !*host || !*port) {
    return std::unexpected(
        "not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  }
  const fs::path sa = root / "var/run/secrets/kubernetes.io/serviceaccount";
  ClusterConfig config;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6 literal
  config.server = "https://" + h + ":" + port;
  config.context = "in-cluster";
  config.token_file = sa / "token";
  if (auto t = read_file(config.token_file); !t) {
    return std::unexpected("in cluster: " + t.error());
  }
  auto ca = read_file(sa / "ca.crt");
  if (!ca) return std::unexpected("in cluster: " + ca.error());
  config.tls.ca_pem = *ca;
  return config;
}

std::expected<ClusterConfig, std::string> resolve_config(const ConfigSource& source) {
  if (source.kubeconfig && !source.kubeconfig->empty()) {
    return load_kubeconfig(*source.kubeconfig, source.context);
  }
  if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    Merged merged;
    std::string list = env;
    std::size_t start = 0;
    bool any = false;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      fs::path p = list.substr(start, end - start);
      if (!p.empty() && fs::exists(p)) {
        if (auto r = merge_file(p, merged); !r) return std::unexpected(r.error());
        any = true;
      }
      start = end + 1;
    }
    if (!any) return std::unexpected("KUBECONFIG=" + list + ": none of these files exists");
    return from_merged(merged, source.context, "KUBECONFIG");
  }
  if (std::getenv("KUBERNETES_SERVICE_HOST")) return in_cluster_config();
  const char* home = std::getenv("HOME");
  if (home && *home) {
    fs::path p = fs::path(home) / ".kube" / "config";
    if (fs::exists(p)) return load_kubeconfig(p, source.context);
  }
  return std::unexpected(
      "no cluster configuration: give --kubeconfig, set KUBECONFIG, run in a cluster, or create "
      "~/.kube/config");
}

}  // namespace respool::kube
