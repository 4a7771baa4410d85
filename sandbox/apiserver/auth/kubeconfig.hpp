#pragma once
// The kubeconfig the sandbox writes for kubectl and the operator: cluster, user and context all
// named "sandbox".

#include <expected>
#include <filesystem>
#include <string>

namespace respool::sandbox {

struct KubeconfigContent {
  std::string server;  // "https://127.0.0.1:PORT"
  std::string ca_pem;  // empty for plain HTTP
  std::string token;
};

std::string render_kubeconfig(const KubeconfigContent& content);
// Writes it with mode 0600. Errors name the file.
std::expected<void, std::string> write_kubeconfig(const std::filesystem::path& path,
                                                  const KubeconfigContent& content);

}  // namespace respool::sandbox
