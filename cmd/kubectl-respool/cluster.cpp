#include "cmd/kubectl-respool/cluster.hpp"

#include <cstdlib>
#include <filesystem>

#include "operator/kube/yaml.hpp"

namespace respool::kubectl {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> home_kubeconfig() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return std::nullopt;
  fs::path path = fs::path(home) / ".kube" / "config";
  std::error_code ec;
  return fs::exists(path, ec) ? std::optional(path) : std::nullopt;
}

// The kubeconfig file kubectl would read, when it is not left to resolve_config (which puts
// in-cluster before ~/.kube/config, as client-go's in-cluster callers do; kubectl does not).
std::optional<fs::path> kubeconfig_file(const Invocation& inv) {
  if (inv.kubeconfig) return fs::path(*inv.kubeconfig);
  const char* env = std::getenv("KUBECONFIG");
  if (env && *env) {
    std::string list = env;
    for (std::size_t start = 0; start <= list.size();) {
      auto end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      fs::path path = list.substr(start, end - start);
      std::error_code ec;
      if (!path.empty() && fs::exists(path, ec)) return path;
      start = end + 1;
    }
    return std::nullopt;
  }
  return home_kubeconfig();
}

// The namespace of the context used: --context, else current-context.
std::string context_namespace(const fs::path& file, const std::optional<std::string>& context) {
  auto doc = kube::yaml_file_to_json(file.string());
  if (!doc || !doc->is_object()) return "";
  std::string name = context.value_or("");
  if (name.empty() && doc->contains("current-context") && (*doc)["current-context"].is_string())
    name = (*doc)["current-context"].get<std::string>();
  const auto& contexts = (*doc)["contexts"];
  if (!contexts.is_array()) return "";
  for (const auto& c : contexts) {
    if (!c.is_object() || !c.contains("name") || c["name"] != name) continue;
    const auto& ns = c.contains("context") ? c["context"] : nlohmann::json();
    if (ns.is_object() && ns.contains("namespace") && ns["namespace"].is_string())
      return ns["namespace"].get<std::string>();
  }
  return "";
}

}  // namespace

std::expected<Cluster, std::string> connect(const Invocation& inv) {
  std::optional<fs::path> file = kubeconfig_file(inv);
  auto config = file ? kube::load_kubeconfig(*file, inv.context)
                     : kube::resolve_config({inv.kubeconfig, inv.context});
  if (!config) return std::unexpected("error: " + config.error());
  kube::ClientOptions options;
  options.user_agent = "kubectl-respool/" RESPOOL_VERSION;
  options.max_retries = 1;  // a person waits at the prompt: fail fast as kubectl does
  auto client = kube::Client::create(std::move(*config), options);
  if (!client) return std::unexpected(describe(client.error()));
  Cluster cluster{std::move(*client), inv.ns.value_or("")};
  if (cluster.ns.empty() && file) cluster.ns = context_namespace(*file, inv.context);
  if (cluster.ns.empty()) cluster.ns = "default";
  return cluster;
}

std::string describe(const kube::Error& error) {
  using Kind = kube::Error::Kind;
  if (error.is(Kind::Network) || (error.is(Kind::Timeout) && error.code == 0))
    return "Unable to connect to the server: " + error.message;
  if (error.is(Kind::Config)) return "error: " + error.message;
  if (error.code == 0) return "error: " + error.message;
  std::string reason =
      error.reason.empty() ? std::string(kube::to_string(error.kind)) : error.reason;
  return "Error from server (" + reason + "): " + error.message;
}

}  // namespace respool::kubectl
