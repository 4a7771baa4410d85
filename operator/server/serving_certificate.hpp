#pragma once
// The secure metrics endpoint's certificate: a pair of PEM files (cert-manager's Certificate or
// a mounted Secret: tls.crt and tls.key, as controller-runtime's CertDir), re-read when they
// change so that a rotated certificate is served without a restart; or, without files, a
// self-signed one made at start.

#include <condition_variable>
#include <expected>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "operator/http/server.hpp"
#include "operator/runtime/clock.hpp"

namespace respool::server {

struct CertificateFiles {
  std::string dir;
  std::string cert_name = "tls.crt";
  std::string key_name = "tls.key";
  std::string cert_path() const { return dir + "/" + cert_name; }
  std::string key_path() const { return dir + "/" + key_name; }
};

// Both files' PEM; the error names the file that cannot be read.
std::expected<http::ServerTls, std::string> read_certificate(const CertificateFiles& files);

// A CA made for this process and a serving certificate it signs for `names` (IP literals or
// DNS names). Nobody can verify it but by trusting it blindly (insecureSkipVerify): say so.
std::expected<http::ServerTls, std::string> self_signed_certificate(
    const std::vector<std::string>& names);

// Re-reads the files every `period` and calls `changed` with a pair that differs from the last
// one served; a pair that cannot be read is logged and the old one kept.
class CertificateWatcher {
 public:
  CertificateWatcher(
      CertificateFiles files, http::ServerTls served, runtime::Clock& clock,
      runtime::Duration period,
      std::function<std::expected<void, std::string>(const http::ServerTls&)> changed);
  ~CertificateWatcher();  // stops and joins
  CertificateWatcher(const CertificateWatcher&) = delete;
  CertificateWatcher& operator=(const CertificateWatcher&) = delete;

 private:
  void run();
  void check();

  CertificateFiles files_;
  http::ServerTls served_;
  runtime::Clock& clock_;
  runtime::Duration period_;
  std::function<std::expected<void, std::string>(const http::ServerTls&)> changed_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace respool::server
