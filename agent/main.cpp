// respool-node-agent: checks its node's GPUs, NPUs, InfiniBand ports, clock and kubelet
// directory each period, and reports the findings as conditions on its own Node.

#include <csignal>
#include <iostream>

#include <pthread.h>

#include <thread>

#include "agent/agent_loop.hpp"
#include "agent/expectations.hpp"
#include "agent/node_pods.hpp"
#include "agent/options.hpp"
#include "agent/print_readings.hpp"
#include "operator/kube/config.hpp"
#include "operator/kube/yaml.hpp"
#include "operator/runtime/log.hpp"
#include "operator/server/endpoints.hpp"

using namespace respool;

namespace {

std::expected<policy::Catalog, std::string> load_catalog(const std::string& file) {
  auto document = kube::yaml_file_to_json(file);
  if (!document) return std::unexpected("--catalog: " + document.error());
  auto catalog = policy::parse_catalog(*document);
  if (!catalog) return std::unexpected("--catalog: " + file + ": " + catalog.error());
  return catalog;
}

// --print-readings without a node: the flavor comes from --flavor.
int print_without_node(const agent::AgentFlags& flags, agent::CheckerOptions options) {
  agent::Expectations expect;
  if (!flags.catalog.empty()) {
    auto catalog = load_catalog(flags.catalog);
    if (!catalog) {
      std::cerr << "Error: " << catalog.error() << "\n";
      return 2;
    }
    expect = agent::expectations_for_flavor(*catalog, flags.flavor);
  }
  agent::Checker checker(std::move(options), runtime::real_clock());
  for (;;) {
    agent::print_period(std::cout, checker.run(expect), expect);
    if (flags.once) return 0;
    runtime::real_clock().sleep_for(
        std::chrono::duration_cast<runtime::Duration>(flags.check_period));
  }
}

std::string liveness(const agent::AgentLoop& loop, runtime::TimePoint started,
                     runtime::Duration allowed) {
  auto last = loop.last_period();
  if (last == runtime::TimePoint{}) last = started;
  return runtime::real_clock().now() - last > allowed ? "no check period ended lately" : "";
}

// The catalog, when --catalog names one (the flavor's promises are unknown without).
std::expected<std::optional<policy::Catalog>, std::string> optional_catalog(
    const agent::AgentFlags& flags) {
  if (flags.catalog.empty()) return std::optional<policy::Catalog>{};
  auto loaded = load_catalog(flags.catalog);
  if (!loaded) return std::unexpected(loaded.error());
  return std::optional<policy::Catalog>(std::move(*loaded));
}

// SIGINT and SIGTERM go to one thread (sigwait); every thread created after this blocks them.
sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

std::expected<std::unique_ptr<kube::Client>, std::string> connect(const agent::AgentFlags& flags,
                                                                  std::string& server) {
  kube::ConfigSource source;
  if (!flags.kubeconfig.empty()) source.kubeconfig = flags.kubeconfig;
  auto cluster = kube::resolve_config(source);
  if (!cluster) return std::unexpected("no cluster configuration: " + cluster.error());
  server = cluster->server;
  kube::ClientOptions options;
  options.user_agent = "respool-node-agent/" RESPOOL_VERSION;
  options.qps = 5;  // one node's agent: a handful of requests per period at most
  options.burst = 10;
  auto client = kube::Client::create(*cluster, options);
  if (!client) {
    return std::unexpected(std::string("cannot create the API client: ") +
                           client.error().describe());
  }
  return std::move(*client);
}

// /healthz fails when no period ended for three periods and both libraries' timeouts (a hung
// NVML call costs one timeout per period, never the loop); /readyz once conditions are written.
std::expected<server::EndpointsOptions, std::string> endpoint_options(
    const agent::AgentFlags& flags, const agent::AgentLoop& loop, kube::Client& client) {
  using std::chrono::duration_cast;
  const auto started = runtime::real_clock().now();
  const auto allowed =
      duration_cast<runtime::Duration>(3 * flags.check_period + 2 * flags.nvml_timeout +
                                       2 * flags.dcmi_timeout) +
      std::chrono::seconds(60);
  server::EndpointsOptions endpoints;
  endpoints.metrics_bind_address =
      server::metrics_bind_address(flags.metrics, agent::agent_metrics_defaults);
  auto secure = server::secure_metrics(flags.metrics, client);
  if (!secure) return std::unexpected(secure.error());
  endpoints.secure_metrics = std::move(*secure);
  endpoints.health_probe_bind_address = flags.health_probe_bind_address;
  endpoints.liveness.push_back(
      {"checks", [&loop, started, allowed] { return liveness(loop, started, allowed); }});
  endpoints.readiness.push_back(
      {"reported", [&loop] { return loop.reported_once() ? "" : "conditions not written yet"; }});
  return endpoints;
}

// Reports to the Node until SIGINT or SIGTERM.
int run_agent(const agent::AgentFlags& flags, agent::CheckerOptions options) {
  using std::chrono::duration_cast;
  auto catalog = optional_catalog(flags);
  if (!catalog) return runtime::log::error("main", catalog.error()), 1;
  const sigset_t signals = block_stop_signals();
  std::string server;
  auto client = connect(flags, server);
  if (!client) return runtime::log::error("main", client.error()), 1;
  auto& clock = runtime::real_clock();
  runtime::Registry registry;
  agent::AgentMetrics metrics(registry);
  runtime::EventRecorderOptions event_options;
  event_options.reporting_controller = "respool.io/node-agent";
  event_options.reporting_instance = flags.node_name;
  runtime::EventRecorder events(**client, clock, event_options);
  events.start();
  agent::NodeReporter reporter(**client, flags.node_name, &events, clock,
                               duration_cast<std::chrono::seconds>(flags.heartbeat_period));
  agent::Checker checker(std::move(options), clock);
  agent::AgentLoop loop(checker, reporter, metrics, std::move(*catalog), clock,
                        {duration_cast<runtime::Duration>(flags.check_period), flags.once});
  // The pods on this node name the containers that use the GPUs (docs/metrics.md).
  agent::NodePods pods(**client, clock, flags.node_name);
  pods.start();
  agent::UsageMetrics usage(
      registry,
      [root = std::filesystem::path(flags.host_root)](unsigned int pid) {
        return agent::read_process_cgroup(root, pid);
      },
      [&pods](std::string_view uid) { return pods.by_uid(uid); });
  loop.export_usage(usage);
  // A first period before the pods are known would export no container series: wait a little
  // (a failed list, e.g. without the permission, is retried in the background; the checks go on).
  if (!pods.wait_until_listed(std::chrono::seconds(10))) {
    runtime::log::warn("main", "the node's pods are not listed yet: container metrics wait");
  }
  auto endpoints = endpoint_options(flags, loop, **client);
  if (!endpoints) return runtime::log::error("main", "cannot serve: " + endpoints.error()), 1;
  auto served = server::Endpoints::start(std::move(*endpoints), registry);
  if (!served) return runtime::log::error("main", "cannot serve: " + served.error()), 1;
  std::thread signal_thread([&loop, signals] {
    int signal = 0;
    sigwait(&signals, &signal);
    runtime::log::info("main", "stopping", {{"signal", signal}});
    loop.stop();
  });
  runtime::log::info("main", "starting",
                     {{"version", RESPOOL_VERSION}, {"node", flags.node_name}, {"server", server}});
  loop.run();
  if (flags.once) pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  pods.stop();
  events.stop();
  (*served)->stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  agent::AgentFlags flags;
  runtime::FlagSet set("respool-node-agent",
                       "respool-node-agent checks its node's accelerators, InfiniBand, clock and "
                       "kubelet directory, and reports them as conditions on its Node.");
  agent::add_flags(set, flags);
  if (auto parsed = set.parse(argc, argv); !parsed) {
    std::cerr << "Error: " << parsed.error() << "\n\n" << set.usage();
    return 2;
  }
  if (set.help_requested()) {
    std::cout << set.usage();
    return 0;
  }
  if (flags.version) {
    std::cout << "respool-node-agent " << RESPOOL_VERSION << "\n";
    return 0;
  }
  runtime::log::Format format;
  runtime::log::Level level;
  if (!runtime::log::parse_format(flags.log_format, format) ||
      !runtime::log::parse_level(flags.log_level, level)) {
    std::cerr << "Error: invalid --log-format or --log-level\n";
    return 2;
  }
  runtime::log::configure(format, level);
  if (auto metrics = server::check_metrics_serving_flags(flags.metrics); !metrics) {
    std::cerr << "Error: " << metrics.error() << "\n";
    return 2;
  }
  auto options = agent::checker_options(flags);
  if (!options) {
    std::cerr << "Error: " << options.error() << "\n";
    return 2;
  }
  if (flags.print_readings) {
    if (!set.changed("state-dir")) options->state_file.clear();  // a look, not a run
    return print_without_node(flags, std::move(*options));
  }
  if (flags.node_name.empty()) {
    std::cerr << "Error: no node to report on: set NODE_NAME (the downward API's spec.nodeName) "
                 "or --node-name; --print-readings looks without one\n";
    return 2;
  }
  return run_agent(flags, std::move(*options));
}
