// respool-operator: runs respool's controllers against a Kubernetes cluster.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "operator/kube/config.hpp"
#include "operator/runtime/flags.hpp"
#include "operator/runtime/log.hpp"
#include "operator/runtime/manager.hpp"
#include "operator/server/endpoints.hpp"
#include "reconcilers/setup.hpp"

using namespace respool;

namespace {

std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

struct Flags {
  std::string kubeconfig;
  std::string context;
  std::string catalog = "/etc/respool/catalog.yaml";
  bool leader_elect = false;
  std::string leader_election_namespace = env_or("POD_NAMESPACE", "respool-system");
  std::string leader_election_id = "respool-operator-leader";
  std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
  std::string metrics_bind_address = ":8080";
  std::string health_probe_bind_address = ":8081";
  int workers = 2;
  std::string log_level = "info";
  std::string log_format = "auto";
  std::string audit_log = "-";
  std::string operator_namespace = env_or("POD_NAMESPACE", "respool-system");
  std::string job_selector;
  bool training_jobs = true;
  double kube_api_qps = 50;
  int kube_api_burst = 100;
  std::chrono::nanoseconds shutdown_timeout = std::chrono::seconds(30);
  bool version = false;
};

void add_flags(runtime::FlagSet& set, Flags& f) {
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
  set.add_string("metrics-bind-address", &f.metrics_bind_address,
                 "Address of the /metrics endpoint; \"0\" disables it");
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
               "Run the training-job controller: restarts of batch/v1 Jobs with fault-tolerance/* "
               "annotations (needs jobs, pods/log and pods/exec in every namespace)");
  set.add_double("kube-api-qps", &f.kube_api_qps, "Client-side limit of API requests per second");
  set.add_int("kube-api-burst", &f.kube_api_burst, "Burst of the client-side limit");
  set.add_duration("graceful-shutdown-timeout", &f.shutdown_timeout,
                   "How long SIGTERM waits for in-flight reconciles before exiting anyway");
  set.add_bool("version", &f.version, "Print the version and exit");
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  runtime::FlagSet set("respool-operator",
                       "respool-operator runs dedicated GPU/NPU resource pools: it reconciles "
                       "ResourcePool, Network and NodeOperation objects (respool.io/v1alpha1).");
  add_flags(set, flags);
  if (auto parsed = set.parse(argc, argv); !parsed) {
    std::cerr << "Error: " << parsed.error() << "\n\n" << set.usage();
    return 2;
  }
  if (set.help_requested()) {
    std::cout << set.usage();
    return 0;
  }
  if (flags.version) {
    std::cout << "respool-operator " << RESPOOL_VERSION << "\n";
    return 0;
  }
  if (!set.args().empty()) {
    std::cerr << "Error: unexpected argument \"" << set.args().front() << "\"\n";
    return 2;
  }
  runtime::log::Format format;
  runtime::log::Level level;
  if (!runtime::log::parse_format(flags.log_format, format)) {
    std::cerr << "Error: invalid argument \"" << flags.log_format
              << "\" for \"--log-format\" flag: must be json, text or auto\n";
    return 2;
  }
  if (!runtime::log::parse_level(flags.log_level, level)) {
    std::cerr << "Error: invalid argument \"" << flags.log_level
              << "\" for \"--log-level\" flag: must be debug, info, warn or error\n";
    return 2;
  }
  if (flags.workers < 1) {
    std::cerr << "Error: invalid argument \"" << flags.workers
              << "\" for \"--workers\" flag: must be at least 1\n";
    return 2;
  }
  runtime::log::configure(format, level);
  runtime::log::open_audit(flags.audit_log);

  // Signals go to one thread that turns them into a graceful stop; every other thread (all
  // created after this) has them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  kube::ConfigSource source;
  if (!flags.kubeconfig.empty()) source.kubeconfig = flags.kubeconfig;
  if (!flags.context.empty()) source.context = flags.context;
  auto cluster = kube::resolve_config(source);
  if (!cluster) {
    runtime::log::error("main", "no cluster configuration", {{"error", cluster.error()}});
    return 1;
  }
  runtime::ManagerOptions options;
  options.cluster = *cluster;
  options.client.qps = flags.kube_api_qps;
  options.client.burst = flags.kube_api_burst;
  options.leader_elect = flags.leader_elect;
  options.leader_election_namespace = flags.leader_election_namespace;
  options.leader_election_id = flags.leader_election_id;
  options.lease_duration = std::chrono::duration_cast<runtime::Duration>(flags.lease_duration);
  options.renew_deadline = std::chrono::duration_cast<runtime::Duration>(flags.renew_deadline);
  options.retry_period = std::chrono::duration_cast<runtime::Duration>(flags.retry_period);
  auto manager = runtime::Manager::create(options);
  if (!manager) {
    runtime::log::error("main", "cannot create the API client",
                        {{"error", manager.error().describe()}});
    return 1;
  }
  runtime::Manager& m = **manager;

  reconcilers::Options reconciler_options;
  reconciler_options.catalog_file = flags.catalog;
  reconciler_options.operator_namespace = flags.operator_namespace;
  reconciler_options.job_selector = flags.job_selector;
  reconciler_options.workers = flags.workers;
  reconciler_options.training_jobs = flags.training_jobs;
  auto op = reconcilers::setup(m, reconciler_options);
  if (!op) {
    runtime::log::error("main", "cannot set up the controllers", {{"error", op.error()}});
    return 1;
  }

  server::EndpointsOptions endpoints;
  endpoints.metrics_bind_address = flags.metrics_bind_address;
  endpoints.health_probe_bind_address = flags.health_probe_bind_address;
  endpoints.liveness.push_back({"ping", [] { return std::string(); }});
  endpoints.readiness.push_back(
      {"informers", [&m] { return m.caches_synced() ? std::string() : "caches not synced"; }});
  endpoints.readiness.push_back({"leader-election", [&m] {
                                   return m.leadership_known() ? std::string()
                                                               : "leadership unknown";
                                 }});
  auto served = server::Endpoints::start(endpoints, m.metrics());
  if (!served) {
    runtime::log::error("main", "cannot serve the endpoints", {{"error", served.error()}});
    return 1;
  }
  runtime::log::info("main", "starting",
                     {{"version", RESPOOL_VERSION},
                      {"server", cluster->server},
                      {"context", cluster->context},
                      {"identity", m.identity()},
                      {"leaderElect", flags.leader_elect},
                      {"metricsPort", (*served)->metrics_port()},
                      {"healthPort", (*served)->health_port()}});

  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    runtime::log::info("main", "signal received, shutting down",
                       {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    m.stop();
    // A reconcile stuck past the grace period must not keep the pod from terminating.
    std::this_thread::sleep_for(flags.shutdown_timeout);
    runtime::log::error("main", "graceful shutdown timed out, exiting");
    std::_Exit(1);
  });
  signal_thread.detach();

  int code = m.run();
  (*served)->stop();
  if (code != 0) {
    runtime::log::error("main", "exiting", {{"code", code}});
    std::fflush(nullptr);
    std::_Exit(code);  // a lost lease: do not wait for in-flight reconciles
  }
  runtime::log::info("main", "exited cleanly");
  std::fflush(nullptr);
  std::_Exit(0);  // the signal thread still sleeps; nothing else is left to clean up
}
