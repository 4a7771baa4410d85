#include "sandbox/apiserver/auth/kubeconfig.hpp"

#include <sys/stat.h>

#include <fstream>

#include "apimachinery/base64.hpp"
#include "sandbox/apiserver/util.hpp"

namespace respool::sandbox {

std::string render_kubeconfig(const KubeconfigContent& c) {
  std::string out;
  out += "apiVersion: v1\n";
  out += "kind: Config\n";
  out += "clusters:\n";
  out += "- name: sandbox\n";
  out += "  cluster:\n";
  out += "    server: " + c.server + "\n";
  if (!c.ca_pem.empty())
    out += "    certificate-authority-data: " + apimachinery::base64_encode(c.ca_pem) + "\n";
  out += "contexts:\n";
  out += "- name: sandbox\n";
  out += "  context:\n";
  out += "    cluster: sandbox\n";
  out += "    user: sandbox\n";
  out += "current-context: sandbox\n";
  out += "preferences: {}\n";
  out += "users:\n";
  out += "- name: sandbox\n";
  out += "  user:\n";
  out += "    token: " + c.token + "\n";
  return out;
}

std::expected<void, std::string> write_kubeconfig(const std::filesystem::path& path,
                                                  const KubeconfigContent& content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    if (!f) return std::unexpected("cannot write " + tmp.string());
    f << render_kubeconfig(content);
    if (!f) return std::unexpected("cannot write " + tmp.string());
  }
  ::chmod(tmp.c_str(), 0600);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return std::unexpected("cannot write " + path.string() + ": " + ec.message());
  return {};
}

}  // namespace respool::sandbox
