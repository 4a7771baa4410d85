#include "agent/state_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace respool::agent {

namespace fs = std::filesystem;

bool AgentState::operator==(const AgentState& o) const {
  return links == o.links && to_json(*this) == to_json(o);
}

nlohmann::json to_json(const AgentState& state) {
  auto xids = nlohmann::json::array();
  for (const auto& x : state.xids) {
    xids.push_back(
        {{"index", x.index},
         {"uuid", x.uuid},
         {"xid", x.xid},
         {"at",
          std::chrono::duration_cast<std::chrono::seconds>(x.at.time_since_epoch()).count()}});
  }
  return {{"linkDowns", state.links.to_json()}, {"xids", xids}};
}

AgentState state_from_json(const nlohmann::json& j) {
  AgentState s;
  if (!j.is_object()) return s;
  if (auto l = j.find("linkDowns"); l != j.end()) s.links = LinkDownWindow::from_json(*l);
  if (auto x = j.find("xids"); x != j.end() && x->is_array()) {
    for (const auto& e : *x) {
      if (!e.is_object() || !e.value("xid", nlohmann::json()).is_number_unsigned()) continue;
      XidEvent event;
      event.index = e.value("index", 0u);
      event.uuid = e.value("uuid", "");
      event.xid = e.value("xid", 0ull);
      event.at = std::chrono::system_clock::time_point(std::chrono::seconds(e.value("at", 0ll)));
      s.xids.push_back(std::move(event));
    }
  }
  return s;
}

std::expected<AgentState, std::string> load_state(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return AgentState{};
  std::ifstream in(file);
  if (!in)
    return std::unexpected(fmt::format("{}: unreadable: {}", file.string(), std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return std::unexpected(file.string() + ": not a JSON object");
  }
  return state_from_json(j);
}

std::expected<void, std::string> save_state(const fs::path& file, const AgentState& state) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  auto temporary = file;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out)
      return std::unexpected(fmt::format("{}: {}", temporary.string(), std::strerror(errno)));
    out << to_json(state).dump() << '\n';
    out.flush();
    if (!out) return std::unexpected(temporary.string() + ": write failed");
  }
  fs::rename(temporary, file, ec);
  if (ec) return std::unexpected(fmt::format("{}: {}", file.string(), ec.message()));
  return {};
}

}  // namespace respool::agent
