#include "cmd/kubectl-respool/view/help.hpp"

#include "cmd/kubectl-respool/view/args.hpp"

namespace respool::kubectl {
namespace {

constexpr const char* kOptions = R"(Options:
    --context='':
	The name of the kubeconfig context to use

    --kubeconfig='':
	Path to the kubeconfig file to use for CLI requests (default: $KUBECONFIG, else
	~/.kube/config, else the pod's service account)

    -n, --namespace='':
	The namespace of the job (top job; default: the context's namespace, else "default")

    -o, --output='':
	Output format. One of: (json, yaml, wide)

    --prometheus-url='':
	Prometheus' base URL for top (default: $RESPOOL_PROMETHEUS_URL, else
	http://localhost:9090)

)";

struct Help {
  std::vector<std::string> command;
  const char* text;
  const char* usage;
};

const Help kHelp[] = {
    {{"status"},
     "Show resource pools: phase, nodes by state, the faulty nodes with their fault codes, the\n"
     "replacement budget and when its next slot frees, driver upgrade progress, and the jobs\n"
     "running and pending. Without POOL, every pool as a table.\n\n"
     "Examples:\n  # Every pool\n  kubectl respool status\n\n  # One pool's page\n"
     "  kubectl respool status gpu-a\n\n",
     "kubectl respool status [POOL] [options]"},
    {{"jobs"},
     "List a pool's running jobs and its pending ones with their queue positions (the pool's\n"
     "status.jobs: pod priority, then creation, as the default scheduler orders them).\n\n"
     "Examples:\n  kubectl respool jobs gpu-a\n  kubectl respool jobs gpu-a -o wide\n\n",
     "kubectl respool jobs POOL [options]"},
    {{"nodes"},
     "List a pool's nodes: state, fault codes, driver upgrade state and the NodeOperation each\n"
     "is in.\n\nExamples:\n  kubectl respool nodes gpu-a -o wide\n\n",
     "kubectl respool nodes POOL [options]"},
    {{"top", "job"},
     "Show each task's (worker-<index>) cpu, memory, GPU and NPU use of a Job over the last\n"
     "hour, per minute, from Prometheus (the ma_container_* series, docs/metrics.md): the latest\n"
     "value, the minimum, the maximum and a sparkline. A series Prometheus does not have shows\n"
     "as \"no data\".\n\nExamples:\n  kubectl respool top job llm -n team-a\n"
     "  kubectl respool top job llm --prometheus-url http://prometheus.monitoring:9090\n\n",
     "kubectl respool top job NAME [-n NAMESPACE] [options]"},
};

constexpr const char* kRoot =
    "respool shows resource pools, their nodes and jobs, and a job's tasks' accelerator use.\n\n"
    "Available Commands:\n"
    "  status      Show resource pools, or one pool's page\n"
    "  jobs        List a pool's running and pending jobs with queue positions\n"
    "  nodes       List a pool's nodes: state, fault codes, upgrade state, operation\n"
    "  top job     Show a job's tasks' cpu, memory, GPU and NPU use over the last hour\n\n";

}  // namespace

std::string help_text(const std::vector<std::string>& command) {
  for (const Help& h : kHelp)
    if (h.command == command)
      return std::string(h.text) + kOptions + "Usage:\n  " + h.usage + "\n\n" +
             "Use \"kubectl options\" for a list of global command-line options (applies to all "
             "commands).\n";
  return std::string(kRoot) + kOptions +
         "Usage:\n  kubectl respool [command] [options]\n\n"
         "Use \"kubectl respool <command> --help\" for more information about a command.\n";
}

std::string see_help(const std::vector<std::string>& command) {
  std::string name = "kubectl respool";
  if (is_command(command))
    for (const auto& word : command)
      name += " " + word;
  return "See '" + name + " -h' for help and examples.";
}

}  // namespace respool::kubectl
