#pragma once
// The metrics endpoint's flags, shared by respool-operator and respool-node-agent, as
// kubebuilder's scaffold names them: --metrics-secure, --metrics-bind-address (its default
// follows the mode), --metrics-cert-dir with --metrics-cert-name and --metrics-key-name, and
// --metrics-auth-cache-ttl; and what they make: the endpoints' SecureMetrics.

#include <chrono>
#include <expected>
#include <optional>
#include <string>

#include "operator/kube/client.hpp"
#include "operator/runtime/flags.hpp"
#include "operator/server/endpoints.hpp"

namespace respool::server {

struct MetricsServingFlags {
  std::string bind_address;  // "" = the mode's default (MetricsDefaults)
  bool secure = false;
  std::string cert_dir;  // "" = a self-signed certificate made at start
  std::string cert_name = "tls.crt";
  std::string key_name = "tls.key";
  std::chrono::nanoseconds auth_cache_ttl = std::chrono::minutes(1);
};

struct MetricsDefaults {
  std::string plain;   // ":8080"
  std::string secure;  // ":8443"
};

void add_metrics_serving_flags(runtime::FlagSet& set, MetricsServingFlags& flags,
                               const MetricsDefaults& defaults);

// --metrics-bind-address, or the mode's default.
std::string metrics_bind_address(const MetricsServingFlags& flags, const MetricsDefaults& defaults);

// Errors name the flag.
std::expected<void, std::string> check_metrics_serving_flags(const MetricsServingFlags& flags);

// nullopt when --metrics-secure is off. The certificate comes from --metrics-cert-dir, or is
// made at start (and the log says it is self-signed); reviews go through `client`, which must
// outlive the endpoints.
std::expected<std::optional<SecureMetrics>, std::string> secure_metrics(
    const MetricsServingFlags& flags, kube::Client& client);

}  // namespace respool::server
