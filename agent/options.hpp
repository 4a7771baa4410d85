#pragma once
// respool-node-agent's command line (Kubernetes components' pflag conventions, as the
// operator's).

#include <chrono>
#include <expected>
#include <string>

#include "agent/checker.hpp"
#include "operator/runtime/flags.hpp"
#include "operator/server/metrics_serving.hpp"

namespace respool::agent {

struct AgentFlags {
  std::string kubeconfig;
  std::string node_name;  // default $NODE_NAME
  std::string catalog;    // "" = no catalog: the flavor's promises are unknown
  std::string flavor;     // one-shot mode without a node: the flavor to expect
  std::string host_root = "/host";
  std::string kubelet_dir = "/var/lib/kubelet";
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string dcmi_library = "libdcmi.so";
  std::string checks = "gpu,npu,infiniband,clock,kubelet-directory";
  std::string state_dir = "/var/lib/respool-node-agent";
  std::chrono::nanoseconds check_period = std::chrono::seconds(30);
  std::chrono::nanoseconds heartbeat_period = std::chrono::minutes(5);
  std::chrono::nanoseconds nvml_timeout = std::chrono::seconds(5);
  std::chrono::nanoseconds dcmi_timeout = std::chrono::seconds(5);
  std::chrono::nanoseconds max_clock_error = std::chrono::milliseconds(500);
  std::chrono::nanoseconds xid_hold = std::chrono::hours(1);
  server::MetricsServingFlags metrics;  // --metrics-*: :9464 plain or secure
  std::string health_probe_bind_address = ":9465";
  std::string log_level = "info";
  std::string log_format = "auto";
  bool print_readings = false;
  bool once = false;
  bool version = false;
};

// /metrics on the port the agent's DaemonSet has always named, HTTPS or not.
inline const server::MetricsDefaults agent_metrics_defaults{":9464", ":9464"};

void add_flags(runtime::FlagSet& set, AgentFlags& f);
// The checker's options from the flags; errors name the flag.
std::expected<CheckerOptions, std::string> checker_options(const AgentFlags& f);

}  // namespace respool::agent
