#pragma once
// What the usage metrics need of a pod on this node: its names, its containers' runtime IDs,
// and for a Job's pod the job and task ("worker-<index>", as the documents name a training
// job's tasks). Pure: built from the pod's JSON (the agent's pod cache, node_pods.hpp).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::agent::usage {

struct PodInfo {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string job;   // "" when the pod is no Job's
  std::string task;  // "worker-<completion index>"; "" without an index
  // (runtime container ID without scheme, container name), of every container status.
  std::vector<std::pair<std::string, std::string>> containers;

  // The container's name for a runtime ID; nullopt when the pod has none of that ID (a
  // container restarted since: the old ID is gone from the status).
  std::optional<std::string> container_name(std::string_view id) const;
};

PodInfo pod_info_from_json(const nlohmann::json& pod);

// A pod on this node by UID; nullopt when it is not (yet) known.
using PodLookup = std::function<std::optional<PodInfo>(std::string_view uid)>;

}  // namespace respool::agent::usage
