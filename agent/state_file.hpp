#pragma once
// What the agent must not forget across a restart (a crash, an upgrade of its DaemonSet): the
// hccn link-down history (H9's rolling 24 hours) and the Xid events still held (H5). Kept in a
// file on the node (--state-dir, a hostPath: the one path the agent writes), not on the Node
// object: the history belongs to the node's hardware, and writing it to the API would need
// `patch nodes` (labels, taints, spec) where the agent has only `patch nodes/status`.

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/checks/gpu_readings.hpp"
#include "agent/checks/link_down_window.hpp"

namespace respool::agent {

struct AgentState {
  LinkDownWindow links;
  std::vector<XidEvent> xids;
  bool operator==(const AgentState& o) const;
};

nlohmann::json to_json(const AgentState& state);
AgentState state_from_json(const nlohmann::json& j);

// A missing file is an empty state; a damaged one is an error (the agent logs it and starts
// empty rather than stop checking).
std::expected<AgentState, std::string> load_state(const std::filesystem::path& file);
// Written to a temporary file and renamed over the old one, so a crash mid-write leaves the
// old state whole.
std::expected<void, std::string> save_state(const std::filesystem::path& file,
                                            const AgentState& state);

}  // namespace respool::agent
