#pragma once
// What the operator's flags tell the controllers.

#include <chrono>
#include <filesystem>
#include <string>

namespace respool::reconcilers {

struct Options {
  std::filesystem::path catalog_file;  // --catalog
  std::string operator_namespace;      // where plug-ins without a namespace go
  std::string job_selector;            // label selector of pods that count as jobs ("" = all)
  int workers = 2;                     // per controller
  bool training_jobs = true;           // the training-job controller (--training-jobs)
  // Prometheus' HTTP API (--prometheus-url, "" = none): performance monitoring (O4) compares
  // the workers' accelerator use there, else their log rates.
  std::string prometheus_url;
  // The node agents' --heartbeat-period (--node-agent-heartbeat-period): a condition not renewed
  // for three of them is stale (H16).
  std::chrono::seconds node_agent_heartbeat_period = std::chrono::minutes(5);
};

}  // namespace respool::reconcilers
