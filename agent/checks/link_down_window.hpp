#pragma once
// H9: hccn link-downs of each NPU in a rolling 24 hours. Kept in the agent's state file on the
// node (state_file.hpp), so that a restarted agent still counts the downs before it. A down is
// a link seen up in one reading and not up in the next; a flap shorter than --check-period is
// not seen (hccn_tool's own history would see it, but it is a tool, not a library).

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::agent {

class LinkDownWindow {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  // Records this reading of a link ("npu 0/1"); returns true when it went down since the last.
  bool observe(const std::string& link, bool up, TimePoint now);
  // Downs within the window before `now`.
  int downs(const std::string& link, TimePoint now) const;
  // Forgets downs older than the window.
  void prune(TimePoint now);
  std::vector<std::string> links() const;

  nlohmann::json to_json() const;
  // Unknown or malformed entries are skipped (a damaged state file loses history, never the agent).
  static LinkDownWindow from_json(const nlohmann::json& j);
  bool operator==(const LinkDownWindow&) const = default;

 private:
  struct Link {
    bool last_up = true;
    std::vector<TimePoint> downs;
    bool operator==(const Link&) const = default;
  };
  std::map<std::string, Link> links_;
};

}  // namespace respool::agent
