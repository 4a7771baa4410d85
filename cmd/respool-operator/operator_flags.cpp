#include "cmd/respool-operator/operator_flags.hpp"

#include <cstdlib>

#include "operator/http/message.hpp"

namespace respool::cmd {

namespace {

std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

runtime::Duration duration(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<runtime::Duration>(d);
}

}  // namespace

OperatorFlags default_flags() {
  OperatorFlags f;
  f.leader_election_namespace = env_or("POD_NAMESPACE", "respool-system");
  f.operator_namespace = env_or("POD_NAMESPACE", "respool-system");
  return f;
}

void add_flags(runtime::FlagSet& set, OperatorFlags& f) {
  set.add_string(
      "kubeconfig", &f.kubeconfig,
      "Path to a kubeconfig. Default: $KUBECONFIG, then in-cluster, then ~/.kube/config");
  set.add_string("context", &f.context, "The kubeconfig context to use (default: current-context)");
  set.add_string("catalog", &f.catalog,
                 "The catalog: flavors, network presets, plug-ins, drivers (YAML)");
  set.add_bool("leader-elect", &f.leader_elect,
               "Elect a leader through a Lease so that only one replica reconciles");
  set.add_string("leader-election-namespace", &f.leader_election_namespace,
                 "Namespace of the leader-election Lease (default $POD_NAMESPACE)");
  set.add_string("leader-election-id", &f.leader_election_id, "Name of the leader-election Lease");
  set.add_duration("leader-election-lease-duration", &f.lease_duration,
                   "How long a lease holds without renewal");
  set.add_duration("leader-election-renew-deadline", &f.renew_deadline,
                   "How long the leader retries renewing before it gives up leadership");
  set.add_duration("leader-election-retry-period", &f.retry_period,
                   "How often candidates try to acquire and the leader renews");
  server::add_metrics_serving_flags(set, f.metrics, operator_metrics_defaults);
  set.add_string("health-probe-bind-address", &f.health_probe_bind_address,
                 "Address of /healthz and /readyz; \"0\" disables them");
  set.add_int("workers", &f.workers, "Concurrent reconciles per controller");
  set.add_string("log-level", &f.log_level, "debug, info, warn or error");
  set.add_string("log-format", &f.log_format,
                 "json, text, or auto (text on a terminal, JSON otherwise)");
  set.add_string("audit-log", &f.audit_log,
                 "Where audit records go, one JSON line each; - is stdout");
  set.add_string("namespace", &f.operator_namespace,
                 "Namespace for plug-ins whose manifests name none (default $POD_NAMESPACE)");
  set.add_string("job-selector", &f.job_selector,
                 "Label selector of the pods that count as jobs (default: every pod not owned by a "
                 "DaemonSet)");
  set.add_bool("training-jobs", &f.training_jobs,
               "Run the training-job and diagnosis controllers: restarts of batch/v1 Jobs with "
               "fault-tolerance/* annotations, their risk labels and Diagnoses (needs jobs, pods, "
               "pods/log and pods/exec in every namespace, and the diagnoses.respool.io CRD)");
  set.add_string("prometheus-url", &f.prometheus_url,
                 "Prometheus' HTTP API (e.g. http://prometheus-operated.monitoring:9090): "
                 "performance monitoring of training jobs compares their workers' accelerator use "
                 "there (ma_container_gpu_util, ma_container_npu_util); without it, or where it "
                 "has no series of a job, their log rates");
  set.add_double("kube-api-qps", &f.kube_api_qps, "Client-side limit of API requests per second");
  set.add_int("kube-api-burst", &f.kube_api_burst, "Burst of the client-side limit");
  set.add_duration("graceful-shutdown-timeout", &f.shutdown_timeout,
                   "How long SIGTERM waits for in-flight reconciles before exiting anyway");
  set.add_duration("cache-sync-timeout", &f.cache_sync_timeout,
                   "How long the start waits for every cache to sync before it exits non-zero, "
                   "naming each cache that did not and why");
  set.add_duration("node-agent-heartbeat-period", &f.node_agent_heartbeat_period,
                   "The node agents' --heartbeat-period: a node condition not renewed for three "
                   "of them is stale (reported, never isolating)");
  set.add_bool("version", &f.version, "Print the version and exit");
}

std::expected<LogSettings, std::string> check_flags(const OperatorFlags& f) {
  LogSettings out{};
  if (!runtime::log::parse_format(f.log_format, out.format)) {
    return std::unexpected("invalid argument \"" + f.log_format +
                           "\" for \"--log-format\" flag: must be json, text or auto");
  }
  if (!runtime::log::parse_level(f.log_level, out.level)) {
    return std::unexpected("invalid argument \"" + f.log_level +
                           "\" for \"--log-level\" flag: must be debug, info, warn or error");
  }
  if (f.node_agent_heartbeat_period < std::chrono::seconds(1)) {
    return std::unexpected(
        "invalid argument for \"--node-agent-heartbeat-period\" flag: must be "
        "at least 1s");
  }
  if (!f.prometheus_url.empty() && !http::parse_url(f.prometheus_url)) {
    return std::unexpected("invalid argument \"" + f.prometheus_url +
                           "\" for \"--prometheus-url\" flag: must be an http:// or https:// "
                           "URL such as http://prometheus-operated.monitoring:9090");
  }
  if (auto metrics = server::check_metrics_serving_flags(f.metrics); !metrics) {
    return std::unexpected(metrics.error());
  }
  if (f.workers < 1) {
    return std::unexpected("invalid argument \"" + std::to_string(f.workers) +
                           "\" for \"--workers\" flag: must be at least 1");
  }
  return out;
}

runtime::ManagerOptions manager_options(const OperatorFlags& f, kube::ClusterConfig cluster) {
  runtime::ManagerOptions options;
  options.cluster = std::move(cluster);
  options.client.qps = f.kube_api_qps;
  options.client.burst = f.kube_api_burst;
  options.leader_elect = f.leader_elect;
  options.leader_election_namespace = f.leader_election_namespace;
  options.leader_election_id = f.leader_election_id;
  options.lease_duration = duration(f.lease_duration);
  options.renew_deadline = duration(f.renew_deadline);
  options.retry_period = duration(f.retry_period);
  options.cache_sync_timeout = duration(f.cache_sync_timeout);
  options.install_crd_hint =
      "install respool's CRDs with kubectl apply -f crds/ (from a release: the chart's "
      "helm/respool/crds/ folder; helm upgrade does not update CRDs)";
  return options;
}

reconcilers::Options reconciler_options(const OperatorFlags& f) {
  reconcilers::Options options;
  options.catalog_file = f.catalog;
  options.operator_namespace = f.operator_namespace;
  options.job_selector = f.job_selector;
  options.workers = f.workers;
  options.training_jobs = f.training_jobs;
  options.prometheus_url = f.prometheus_url;
  options.node_agent_heartbeat_period =
      std::chrono::duration_cast<std::chrono::seconds>(f.node_agent_heartbeat_period);
  return options;
}

kube::ConfigSource config_source(const OperatorFlags& f) {
  kube::ConfigSource source;
  if (!f.kubeconfig.empty()) source.kubeconfig = f.kubeconfig;
  if (!f.context.empty()) source.context = f.context;
  return source;
}

}  // namespace respool::cmd
