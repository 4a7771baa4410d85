#include "reconcilers/policy/pool_events.hpp"

namespace respool::policy {

namespace {

std::string counts(const PoolSummary& s) {
  return std::to_string(s.available) + "/" + std::to_string(s.abnormal) + "/" +
         std::to_string(s.creating) + "/" + std::to_string(s.queuing);
}

bool bad_phase(const std::string& phase) {
  return phase == "Abnormal" || phase == "Failed";
}

int read_int(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

}  // namespace

PoolSummary summarize(const PoolStatus& s) {
  return {std::string(to_string(s.phase)),
          s.nodes.available,
          s.nodes.abnormal,
          s.nodes.creating,
          s.nodes.queuing,
          s.nodes.total + s.nodes.queuing - s.nodes.deleting};
}

PoolSummary summary_from_status_json(const nlohmann::json& status) {
  PoolSummary s;
  if (!status.is_object()) return s;
  s.phase = status.value("phase", "");
  auto nodes = status.find("nodes");
  if (nodes == status.end() || !nodes->is_object()) return s;
  s.available = read_int(*nodes, "available");
  s.abnormal = read_int(*nodes, "abnormal");
  s.creating = read_int(*nodes, "creating");
  s.queuing = read_int(*nodes, "queuing");
  s.desired = read_int(*nodes, "total") + s.queuing - read_int(*nodes, "deleting");
  return s;
}

std::vector<PoolEvent> pool_events(const PoolSummary& before, const PoolSummary& after) {
  std::vector<PoolEvent> events;
  if (before.phase != after.phase) {
    const std::string from = before.phase.empty() ? "None" : before.phase;
    const bool worse = bad_phase(after.phase) && !bad_phase(before.phase);
    events.push_back({worse ? "Warning" : "Normal", "PoolStatusChange",
                      "Pool status changed, from " + from + " to " + after.phase + "."});
  }
  if (counts(before) != counts(after)) {
    // Worse: more abnormal nodes, or fewer available ones while short of what is desired (a
    // scale-in that removes available nodes is not a loss).
    const bool worse = after.abnormal > before.abnormal ||
                       (after.available < before.available && after.available < after.desired);
    events.push_back({worse ? "Warning" : "Normal", "PoolResourcesStatusChange",
                      "Pool resources status changed, available/abnormal/creating/queuing count "
                      "from " +
                          counts(before) + " to " + counts(after) + "."});
  }
  return events;
}

}  // namespace respool::policy
