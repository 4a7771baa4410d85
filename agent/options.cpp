#include "agent/options.hpp"

#include <cstdlib>
#include <sstream>

namespace respool::agent {

void add_flags(runtime::FlagSet& set, AgentFlags& f) {
  if (const char* node = std::getenv("NODE_NAME")) f.node_name = node;
  set.add_string(
      "kubeconfig", &f.kubeconfig,
      "Path to a kubeconfig. Default: $KUBECONFIG, then in-cluster, then ~/.kube/config");
  set.add_string("node-name", &f.node_name,
                 "The Node this agent reports on, and the only one it writes (default $NODE_NAME)");
  set.add_string("catalog", &f.catalog,
                 "The operator's catalog (YAML): what the node's flavor promises (accelerators, "
                 "InfiniBand). Empty: unknown");
  set.add_string("flavor", &f.flavor,
                 "With --print-readings and no node: the catalog flavor to expect");
  set.add_string("host-root", &f.host_root, "Where the host's / is mounted (sys, proc)");
  set.add_string("kubelet-dir", &f.kubelet_dir, "The kubelet's directory on the host");
  set.add_string("nvml-library", &f.nvml_library, "The NVML library dlopen loads");
  set.add_string("dcmi-library", &f.dcmi_library, "The Ascend DCMI library dlopen loads");
  set.add_string("checks", &f.checks,
                 "Comma-separated checks to run: gpu, npu, infiniband, clock, kubelet-directory");
  set.add_string("state-dir", &f.state_dir,
                 "Directory on the host for what must survive a restart (link-downs, Xid "
                 "events); empty keeps it in memory");
  set.add_duration("check-period", &f.check_period, "How often the checks run");
  set.add_duration("heartbeat-period", &f.heartbeat_period,
                   "How often an unchanged condition's lastHeartbeatTime is renewed");
  set.add_duration("nvml-timeout", &f.nvml_timeout,
                   "How long one NVML call may take before the GPU counts as hung (A050103)");
  set.add_duration(
      "dcmi-timeout", &f.dcmi_timeout,
      "How long one DCMI call may take before the NPU driver counts as hung (A050121)");
  set.add_duration(
      "max-clock-error", &f.max_clock_error,
      "The clock's estimated error (adjtimex) above which it counts as unsynchronised");
  set.add_duration("xid-hold", &f.xid_hold, "How long a critical Xid event keeps its finding");
  server::add_metrics_serving_flags(set, f.metrics, agent_metrics_defaults);
  set.add_string("health-probe-bind-address", &f.health_probe_bind_address,
                 "Address of /healthz and /readyz; \"0\" disables them");
  set.add_string("log-level", &f.log_level, "debug, info, warn or error");
  set.add_string("log-format", &f.log_format, "json, text, or auto");
  set.add_bool("print-readings", &f.print_readings,
               "Print every reading and the findings derived from it as JSON (no API server "
               "needed without --node-name)");
  set.add_bool("once", &f.once, "Run the checks once and exit");
  set.add_bool("version", &f.version, "Print the version and exit");
}

std::expected<CheckerOptions, std::string> checker_options(const AgentFlags& f) {
  using std::chrono::duration_cast;
  CheckerOptions o;
  o.host_root = f.host_root;
  o.kubelet_dir = f.kubelet_dir;
  o.nvml_library = f.nvml_library;
  o.dcmi_library = f.dcmi_library;
  o.nvml_timeout = duration_cast<std::chrono::milliseconds>(f.nvml_timeout);
  o.dcmi_timeout = duration_cast<std::chrono::milliseconds>(f.dcmi_timeout);
  o.xid_hold = duration_cast<std::chrono::seconds>(f.xid_hold);
  o.clock.max_estimated_error = duration_cast<std::chrono::microseconds>(f.max_clock_error);
  if (o.nvml_timeout.count() <= 0) return std::unexpected("--nvml-timeout: must be positive");
  if (o.dcmi_timeout.count() <= 0) return std::unexpected("--dcmi-timeout: must be positive");
  if (f.check_period <= std::chrono::nanoseconds::zero()) {
    return std::unexpected("--check-period: must be positive");
  }
  o.enabled.clear();
  std::stringstream in(f.checks);
  for (std::string name; std::getline(in, name, ',');) {
    bool known = false;
    for (auto family : kFamilies) {
      if (check_name(family) == name) o.enabled.insert(family), known = true;
    }
    if (!known && !name.empty()) {
      return std::unexpected("--checks: unknown check \"" + name +
                             "\" (gpu, npu, infiniband, clock, kubelet-directory)");
    }
  }
  if (!f.state_dir.empty()) o.state_file = std::filesystem::path(f.state_dir) / "state.json";
  return o;
}

}  // namespace respool::agent
