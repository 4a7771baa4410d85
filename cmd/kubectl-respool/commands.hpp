#pragma once
// The plugin's commands: each reads what it shows (the cluster, Prometheus) and prints it.
// The return value is the process's exit status; errors are printed as kubectl prints them.

#include "cmd/kubectl-respool/view/args.hpp"

namespace respool::kubectl {

int run_status(const Invocation& inv);
int run_jobs(const Invocation& inv);
int run_nodes(const Invocation& inv);
int run_top_job(const Invocation& inv);

// Prints `message` and the usage hint to stderr; returns 1 (kubectl's status for both).
int usage_error(const Invocation& inv, const std::string& message);

}  // namespace respool::kubectl
