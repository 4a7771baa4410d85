#pragma once
// respool-operator's command line: the flags, their defaults and their checks, and what they
// configure (the manager, the controllers, the endpoints).

#include <chrono>
#include <expected>
#include <string>

#include "operator/kube/config.hpp"
#include "operator/runtime/flags.hpp"
#include "operator/runtime/log.hpp"
#include "operator/runtime/manager.hpp"
#include "operator/server/endpoints.hpp"
#include "operator/server/metrics_serving.hpp"
#include "reconcilers/setup.hpp"

namespace respool::cmd {

struct OperatorFlags {
  std::string kubeconfig;
  std::string context;
  std::string catalog = "/etc/respool/catalog.yaml";
  bool leader_elect = false;
  std::string leader_election_namespace;  // default $POD_NAMESPACE, else respool-system
  std::string leader_election_id = "respool-operator-leader";
  std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
  server::MetricsServingFlags metrics;  // --metrics-*
  std::string health_probe_bind_address = ":8081";
  int workers = 2;
  std::string log_level = "info";
  std::string log_format = "auto";
  std::string audit_log = "-";
  std::string operator_namespace;  // default $POD_NAMESPACE, else respool-system
  std::string job_selector;
  bool training_jobs = true;
  std::string prometheus_url;  // "" = performance monitoring compares log rates
  double kube_api_qps = 50;
  int kube_api_burst = 100;
  std::chrono::nanoseconds shutdown_timeout = std::chrono::seconds(30);
  std::chrono::nanoseconds cache_sync_timeout = std::chrono::minutes(2);
  std::chrono::nanoseconds node_agent_heartbeat_period = std::chrono::minutes(5);
  bool version = false;
};

// The defaults that come from the environment ($POD_NAMESPACE).
OperatorFlags default_flags();

void add_flags(runtime::FlagSet& set, OperatorFlags& f);

// The log settings the flags name; an error names the flag and what it accepts.
struct LogSettings {
  runtime::log::Format format;
  runtime::log::Level level;
};
std::expected<LogSettings, std::string> check_flags(const OperatorFlags& f);

runtime::ManagerOptions manager_options(const OperatorFlags& f, kube::ClusterConfig cluster);
reconcilers::Options reconciler_options(const OperatorFlags& f);
kube::ConfigSource config_source(const OperatorFlags& f);
// /metrics: :8080 plain, :8443 secure (kubebuilder's ports).
inline const server::MetricsDefaults operator_metrics_defaults{":8080", ":8443"};

}  // namespace respool::cmd
