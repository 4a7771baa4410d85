// respool-operator: runs respool's controllers against a Kubernetes cluster. The composition
// root: flags → API client and manager → controllers (reconcilers/setup) → endpoints → run.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cmd/respool-operator/operator_flags.hpp"
#include "operator/kube/config.hpp"
#include "operator/runtime/log.hpp"
#include "operator/runtime/manager.hpp"
#include "operator/server/endpoints.hpp"
#include "reconcilers/setup.hpp"

using namespace respool;

namespace {

// Parses the command line. A value means exit now with it (help, version, bad flags).
std::optional<int> parse_command_line(int argc, char** argv, cmd::OperatorFlags& flags) {
  runtime::FlagSet set("respool-operator",
                       "respool-operator runs dedicated GPU/NPU resource pools: it reconciles "
                       "ResourcePool, Network and NodeOperation objects (respool.io/v1alpha1).");
  cmd::add_flags(set, flags);
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
  auto logs = cmd::check_flags(flags);
  if (!logs) {
    std::cerr << "Error: " << logs.error() << "\n";
    return 2;
  }
  runtime::log::configure(logs->format, logs->level);
  runtime::log::open_audit(flags.audit_log);
  return std::nullopt;
}

// /metrics, /healthz and /readyz; /readyz names each cache still missing and why.
std::expected<std::unique_ptr<server::Endpoints>, std::string> serve(
    const cmd::OperatorFlags& flags, runtime::Manager& m) {
  server::EndpointsOptions endpoints;
  endpoints.metrics_bind_address =
      server::metrics_bind_address(flags.metrics, cmd::operator_metrics_defaults);
  auto secure = server::secure_metrics(flags.metrics, m.client());
  if (!secure) return std::unexpected(secure.error());
  endpoints.secure_metrics = std::move(*secure);
  endpoints.health_probe_bind_address = flags.health_probe_bind_address;
  endpoints.liveness.push_back({"ping", [] { return std::string(); }});
  endpoints.readiness.push_back({"informers", [&m] {
                                   if (m.caches_synced()) return std::string();
                                   std::string reason = "caches not synced";
                                   for (const auto& missing : m.unsynced_caches())
                                     reason += "; " + missing;
                                   return reason;
                                 }});
  endpoints.readiness.push_back({"leader-election", [&m] {
                                   return m.leadership_known() ? std::string()
                                                               : "leadership unknown";
                                 }});
  return server::Endpoints::start(endpoints, m.metrics());
}

// SIGINT and SIGTERM go to one thread that turns them into a graceful stop; every other thread
// has them blocked (blocked here, before any thread exists; threads inherit the mask).
sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// A reconcile stuck past the grace period must not keep the pod from terminating.
void stop_on_signals(runtime::Manager& m, sigset_t signals, std::chrono::nanoseconds grace) {
  std::thread([&m, signals, grace] {
    int sig = 0;
    sigwait(&signals, &sig);
    runtime::log::info("main", "signal received, shutting down",
                       {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    m.stop();
    std::this_thread::sleep_for(grace);
    runtime::log::error("main", "graceful shutdown timed out, exiting");
    std::_Exit(1);
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  cmd::OperatorFlags flags = cmd::default_flags();
  if (auto exit_now = parse_command_line(argc, argv, flags)) return *exit_now;
  const sigset_t signals = block_stop_signals();
  auto cluster = kube::resolve_config(cmd::config_source(flags));
  if (!cluster) {
    runtime::log::error("main", "no cluster configuration", {{"error", cluster.error()}});
    return 1;
  }
  auto manager = runtime::Manager::create(cmd::manager_options(flags, *cluster));
  if (!manager) {
    runtime::log::error("main", "cannot create the API client",
                        {{"error", manager.error().describe()}});
    return 1;
  }
  runtime::Manager& m = **manager;
  auto controllers = reconcilers::setup(m, cmd::reconciler_options(flags));
  if (!controllers) {
    runtime::log::error("main", "cannot set up the controllers", {{"error", controllers.error()}});
    return 1;
  }
  auto served = serve(flags, m);
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
                      {"metricsSecure", flags.metrics.secure},
                      {"healthPort", (*served)->health_port()}});
  stop_on_signals(m, signals, flags.shutdown_timeout);
  const int code = m.run();
  (*served)->stop();
  if (code != 0)
    runtime::log::error("main", "exiting", {{"code", code}, {"reason", m.failure()}});
  else
    runtime::log::info("main", "exited cleanly");
  std::fflush(nullptr);
  // No waiting for in-flight reconciles after a lost lease; after a clean stop the signal
  // thread still sleeps and nothing else is left to clean up.
  std::_Exit(code);
}
