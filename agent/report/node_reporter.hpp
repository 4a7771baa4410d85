#pragma once
// Writes the agent's conditions on its own Node (H14) and the node events for faults found and
// cleared. The node's name is fixed at construction (NODE_NAME): the reporter has no way to
// write any other node. It reads the Node at start, after a failed write, and once a heartbeat
// period (its labels say the flavor; its conditions are what the next plan compares with), and
// writes only what plan_conditions asks for.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "agent/report/conditions.hpp"
#include "operator/kube/client.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/event_recorder.hpp"

namespace respool::agent {

class NodeReporter {
 public:
  NodeReporter(kube::Client& client, std::string node_name, runtime::EventRecorder* events,
               runtime::Clock& clock, std::chrono::seconds heartbeat_period);

  // Reads the Node when it is due (see above); its labels, from this read or the last.
  kube::Result<std::map<std::string, std::string>> node_labels();
  // Plans and writes this period's conditions; the plan (for metrics and tests).
  kube::Result<ConditionPlan> report(const std::vector<FamilyResult>& results);

  const std::string& node_name() const { return node_name_; }

 private:
  void record_events(const std::vector<Transition>& transitions);

  kube::Client& client_;
  const std::string node_name_;
  runtime::EventRecorder* events_;
  runtime::Clock& clock_;
  std::chrono::seconds heartbeat_period_;
  bool stale_ = true;  // read the Node before the next plan
  TimePoint last_read_{};
  std::string uid_;
  std::map<std::string, std::string> labels_;
  std::vector<NodeCondition> conditions_;
};

}  // namespace respool::agent
