#include "operator/server/metrics_serving.hpp"

#include <unistd.h>

#include "operator/runtime/log.hpp"
#include "operator/server/api_reviewer.hpp"

namespace respool::server {

void add_metrics_serving_flags(runtime::FlagSet& set, MetricsServingFlags& flags,
                               const MetricsDefaults& defaults) {
  set.add_bool("metrics-secure", &flags.secure,
               "Serve /metrics over HTTPS to the users the API server allows (a TokenReview of "
               "the bearer token, a SubjectAccessReview of get on the non-resource URL /metrics); "
               "needs create on tokenreviews and subjectaccessreviews");
  set.add_string("metrics-bind-address", &flags.bind_address,
                 "Address of the /metrics endpoint (default " + defaults.secure +
                     " with --metrics-secure, else " + defaults.plain + "); \"0\" disables it");
  set.add_string("metrics-cert-dir", &flags.cert_dir,
                 "Directory of the secure metrics endpoint's certificate and key (cert-manager's "
                 "Secret, mounted), re-read when they change; empty: a self-signed certificate "
                 "made at start");
  set.add_string("metrics-cert-name", &flags.cert_name,
                 "The certificate's file in --metrics-cert-dir");
  set.add_string("metrics-key-name", &flags.key_name, "The key's file in --metrics-cert-dir");
  set.add_duration("metrics-auth-cache-ttl", &flags.auth_cache_ttl,
                   "How long an allowed token's reviews stand without asking the API server again "
                   "(refusals stand 10 s at most); 0 reviews every request");
}

std::string metrics_bind_address(const MetricsServingFlags& flags,
                                 const MetricsDefaults& defaults) {
  if (!flags.bind_address.empty()) return flags.bind_address;
  return flags.secure ? defaults.secure : defaults.plain;
}

std::expected<void, std::string> check_metrics_serving_flags(const MetricsServingFlags& flags) {
  if (!flags.cert_dir.empty() && !flags.secure) {
    return std::unexpected(
        "--metrics-cert-dir needs --metrics-secure: plain HTTP has no certificate");
  }
  if (flags.auth_cache_ttl < std::chrono::nanoseconds::zero()) {
    return std::unexpected("--metrics-auth-cache-ttl must not be negative");
  }
  if (flags.cert_name.empty() || flags.key_name.empty()) {
    return std::unexpected("--metrics-cert-name and --metrics-key-name must not be empty");
  }
  return {};
}

namespace {

// The names a scraper may reach this process by without a Service: loopback and the host name.
std::vector<std::string> local_names() {
  std::vector<std::string> names = {"localhost", "127.0.0.1", "::1"};
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') names.emplace_back(host);
  return names;
}

}  // namespace

std::expected<std::optional<SecureMetrics>, std::string> secure_metrics(
    const MetricsServingFlags& flags, kube::Client& client) {
  if (!flags.secure) return std::optional<SecureMetrics>{};
  SecureMetrics secure;
  if (!flags.cert_dir.empty()) {
    CertificateFiles files{flags.cert_dir, flags.cert_name, flags.key_name};
    auto read = read_certificate(files);
    if (!read) return std::unexpected("--metrics-cert-dir: " + read.error());
    secure.certificate = std::move(*read);
    secure.files = std::move(files);
  } else {
    auto made = self_signed_certificate(local_names());
    if (!made) return std::unexpected(made.error());
    secure.certificate = std::move(*made);
    runtime::log::info("metrics",
                       "serving /metrics with a self-signed certificate made at start (no "
                       "--metrics-cert-dir): scrapers cannot verify it",
                       {});
  }
  secure.reviewer = std::make_shared<ApiReviewer>(client);
  secure.auth.cache_ttl = std::chrono::duration_cast<runtime::Duration>(flags.auth_cache_ttl);
  return std::optional<SecureMetrics>(std::move(secure));
}

}  // namespace respool::server
