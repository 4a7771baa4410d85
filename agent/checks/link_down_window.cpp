#include "agent/checks/link_down_window.hpp"

#include <algorithm>

#include "agent/checks/thresholds.hpp"

namespace respool::agent {

bool LinkDownWindow::observe(const std::string& link, bool up, TimePoint now) {
  auto& l = links_[link];
  const bool went_down = l.last_up && !up;
  if (went_down) l.downs.push_back(now);
  l.last_up = up;
  return went_down;
}

int LinkDownWindow::downs(const std::string& link, TimePoint now) const {
  auto it = links_.find(link);
  if (it == links_.end()) return 0;
  return static_cast<int>(std::count_if(it->second.downs.begin(), it->second.downs.end(),
                                        [&](TimePoint t) { return now - t < kLinkDownWindow; }));
}

void LinkDownWindow::prune(TimePoint now) {
  for (auto& [name, l] : links_) {
    std::erase_if(l.downs, [&](TimePoint t) { return now - t >= kLinkDownWindow; });
  }
}

std::vector<std::string> LinkDownWindow::links() const {
  std::vector<std::string> out;
  for (const auto& [name, l] : links_)
    out.push_back(name);
  return out;
}

nlohmann::json LinkDownWindow::to_json() const {
  auto out = nlohmann::json::object();
  for (const auto& [name, l] : links_) {
    auto downs = nlohmann::json::array();
    for (auto t : l.downs) {
      downs.push_back(
          std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
    }
    out[name] = {{"up", l.last_up}, {"downs", downs}};
  }
  return out;
}

LinkDownWindow LinkDownWindow::from_json(const nlohmann::json& j) {
  LinkDownWindow w;
  if (!j.is_object()) return w;
  for (const auto& [name, entry] : j.items()) {
    if (!entry.is_object()) continue;
    Link l;
    if (auto up = entry.find("up"); up != entry.end() && up->is_boolean()) l.last_up = *up;
    if (auto downs = entry.find("downs"); downs != entry.end() && downs->is_array()) {
      for (const auto& d : *downs) {
        if (d.is_number_integer()) l.downs.emplace_back(std::chrono::seconds(d.get<long long>()));
      }
    }
    w.links_[name] = std::move(l);
  }
  return w;
}

}  // namespace respool::agent
