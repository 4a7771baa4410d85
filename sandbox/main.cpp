// respool-sandbox: the sandbox's Kubernetes API server as a program. Prints the path of the
// kubeconfig it wrote as its first line on stdout and serves until SIGINT or SIGTERM.

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "sandbox/apiserver/api_server.hpp"
#include "sandbox/simulator/simulator.hpp"

namespace {

const char* kUsage =
    "usage: respool-sandbox [--state-dir DIR] [--port N] [--insecure-http] [--token T]\n"
    "                       [--authorization-mode M] [--no-simulator] [--nodes FILE]\n"
    "                       [--time-scale F] [--help]\n"
    "Serves the Kubernetes API of the respool sandbox on 127.0.0.1 and prints the path of the\n"
    "kubeconfig it wrote (cluster, user and context \"sandbox\").\n"
    "  --state-dir DIR   where the kubeconfig and CA go (default: a new temporary directory)\n"
    "  --port N          port to listen on (default: any free port)\n"
    "  --insecure-http   plain HTTP instead of HTTPS\n"
    "  --token T         the bearer token to accept (default: a random one)\n"
    "  --authorization-mode RBAC|AlwaysAllow  RBAC (default) as a real server, or allow every\n"
    "                    authenticated request (the sandbox's own token is an admin either way)\n"
    "  --no-simulator    the bare API server: no simulated nodes, kubelets or controllers\n"
    "  --nodes FILE      free nodes for the simulator to register (sandbox/README.md)\n"
    "  --time-scale F    simulated time runs F times faster than real time (default 1)\n";

int usage_error(const std::string& message) {
  std::cerr << "respool-sandbox: " << message << "\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  respool::sandbox::ApiServerOptions options;
  bool simulator = true;
  std::string nodes_file;
  double time_scale = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--state-dir") {
      if (!value(v)) return usage_error("--state-dir needs a directory");
      options.state_dir = v;
    } else if (arg == "--port") {
      if (!value(v)) return usage_error("--port needs a number");
      char* end = nullptr;
      long port = std::strtol(v.c_str(), &end, 10);
      if (*end != '\0' || port < 0 || port > 65535) return usage_error("bad --port " + v);
      options.port = static_cast<std::uint16_t>(port);
    } else if (arg == "--insecure-http") {
      options.tls = false;
    } else if (arg == "--token") {
      if (!value(v) || v.empty()) return usage_error("--token needs a value");
      options.token = v;
    } else if (arg == "--authorization-mode") {
      if (!value(v) || (v != "RBAC" && v != "AlwaysAllow")) {
        return usage_error("--authorization-mode is RBAC or AlwaysAllow");
      }
      options.authorization = v == "RBAC";
    } else if (arg == "--no-simulator") {
      simulator = false;
    } else if (arg == "--nodes") {
      if (!value(nodes_file) || nodes_file.empty()) return usage_error("--nodes needs a file");
    } else if (arg == "--time-scale") {
      if (!value(v)) return usage_error("--time-scale needs a number");
      char* end = nullptr;
      time_scale = std::strtod(v.c_str(), &end);
      if (*end != '\0' || !(time_scale > 0)) return usage_error("bad --time-scale " + v);
    } else {
      return usage_error("unknown argument " + std::string(arg));
    }
  }

  // Block the stop signals in every thread the server starts; main waits for them below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // One clock for the server and the simulator: leases, watch timeouts and pod runs agree.
  respool::runtime::ScaledClock clock(time_scale);
  options.clock = &clock;
  auto server = respool::sandbox::ApiServer::start(options);
  if (!server) {
    std::cerr << "respool-sandbox: " << server.error() << "\n";
    return 1;
  }
  std::cout << (*server)->kubeconfig_path().string() << std::endl;
  std::cerr << "respool-sandbox: serving " << (*server)->url() << "\n";
  std::unique_ptr<respool::sandbox::Simulator> sim;
  if (simulator) {
    auto started =
        respool::sandbox::Simulator::start((*server)->cluster_config(), {.clock = &clock});
    if (!started) {
      std::cerr << "respool-sandbox: " << started.error() << "\n";
      return 1;
    }
    sim = std::move(*started);
    if (!nodes_file.empty()) {
      auto nodes = sim->load_nodes_file(nodes_file);
      if (!nodes) {
        std::cerr << "respool-sandbox: " << nodes.error() << "\n";
        return 1;
      }
      std::cerr << "respool-sandbox: " << nodes->size() << " simulated nodes\n";
    }
  } else if (!nodes_file.empty()) {
    return usage_error("--nodes needs the simulator");
  }
  int received = 0;
  sigwait(&signals, &received);
  std::cerr << "respool-sandbox: stopping\n";
  if (sim) sim->stop();
  (*server)->stop();
  return 0;
}
