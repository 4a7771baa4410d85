#include "operator/server/serving_certificate.hpp"

#include <fstream>
#include <sstream>

#include "operator/http/pki.hpp"
#include "operator/runtime/log.hpp"

namespace respool::server {

namespace {

std::expected<std::string, std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().empty()) return std::unexpected(path + " is empty");
  return text.str();
}

}  // namespace

std::expected<http::ServerTls, std::string> read_certificate(const CertificateFiles& files) {
  auto cert = read_file(files.cert_path());
  if (!cert) return std::unexpected(cert.error());
  auto key = read_file(files.key_path());
  if (!key) return std::unexpected(key.error());
  http::ServerTls tls;
  tls.cert_pem = std::move(*cert);
  tls.key_pem = std::move(*key);
  return tls;
}

std::expected<http::ServerTls, std::string> self_signed_certificate(
    const std::vector<std::string>& names) {
  auto ca = http::make_ca("respool-metrics-ca");
  if (!ca) return std::unexpected("self-signed certificate: " + ca.error());
  auto serving = http::make_server_cert(*ca, "respool-metrics", names);
  if (!serving) return std::unexpected("self-signed certificate: " + serving.error());
  http::ServerTls tls;
  tls.cert_pem = serving->cert_pem + ca->cert_pem;  // the chain up to the CA
  tls.key_pem = serving->key_pem;
  return tls;
}

CertificateWatcher::CertificateWatcher(
    CertificateFiles files, http::ServerTls served, runtime::Clock& clock, runtime::Duration period,
    std::function<std::expected<void, std::string>(const http::ServerTls&)> changed)
    : files_(std::move(files)),
      served_(std::move(served)),
      clock_(clock),
      period_(period),
      changed_(std::move(changed)) {
  thread_ = std::thread([this] { run(); });
}

CertificateWatcher::~CertificateWatcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CertificateWatcher::run() {
  std::unique_lock lock(mutex_);
  while (!clock_.wait_for(wake_, lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    check();
    lock.lock();
  }
}

void CertificateWatcher::check() {
  auto read = read_certificate(files_);
  if (!read) {
    runtime::log::warn("metrics", "the metrics certificate cannot be re-read: the old one stays",
                       {{"error", read.error()}});
    return;
  }
  if (read->cert_pem == served_.cert_pem && read->key_pem == served_.key_pem) return;
  if (auto done = changed_(*read); !done) {
    // A rotation writes the two files one after the other: the next check sees them agree.
    runtime::log::warn("metrics",
                       "the changed metrics certificate does not load: the old one stays",
                       {{"error", done.error()}, {"cert", files_.cert_path()}});
    return;
  }
  served_ = std::move(*read);
  runtime::log::info("metrics", "serving the rotated metrics certificate",
                     {{"cert", files_.cert_path()}});
}

}  // namespace respool::server
