#pragma once
// The compact view of a Node that policy decisions read (from the informer cache's JSON), and
// which pods count as running jobs (ARCHITECTURE.md: not terminal, not owned by a DaemonSet; the
// configurable job selector is applied by the caller).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::policy {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;      // NoSchedule | PreferNoSchedule | NoExecute
  std::string time_added;  // kept verbatim when taints are rewritten
  bool operator==(const Taint&) const = default;
};

struct NodeView {
  std::string name;
  std::string resource_version;
  std::map<std::string, std::string, std::less<>> labels;
  std::map<std::string, std::string, std::less<>> annotations;
  std::vector<Taint> taints;
  // The Ready condition: true, false, or nullopt when Unknown or not reported yet.
  std::optional<bool> ready;
  // status.allocatable in whole units (accelerators are whole devices).
  std::map<std::string, std::int64_t, std::less<>> allocatable;
  bool unschedulable = false;
  bool deleting = false;  // metadata.deletionTimestamp is set

  const std::string* label(std::string_view key) const;
  bool has_taint(std::string_view key) const;
  std::int64_t allocatable_of(std::string_view resource) const;
};

NodeView node_view_from_json(const nlohmann::json& node);
// The node's taints as JSON (spec.taints), for patches that rewrite the list.
nlohmann::json taints_to_json(const std::vector<Taint>& taints);

// A pod that counts as a running job: bound to a node, not terminal, not owned by a DaemonSet.
bool pod_is_running_job(const nlohmann::json& pod);
// The node a running job runs on, or nullopt.
std::optional<std::string> running_job_node(const nlohmann::json& pod);

}  // namespace respool::policy
