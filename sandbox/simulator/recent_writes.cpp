#include "sandbox/simulator/recent_writes.hpp"

#include <charconv>
#include <set>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {

using Json = nlohmann::json;

std::uint64_t version_number(std::string_view resource_version) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(resource_version.data(),
                                   resource_version.data() + resource_version.size(), v);
  return ec == std::errc() && end == resource_version.data() + resource_version.size() ? v : 0;
}

void RecentWrites::wrote(Json object) {
  const std::string uid = string_at(object, {"metadata", "uid"});
  if (uid.empty()) return;
  const std::uint64_t version =
      version_number(string_view_at(object, {"metadata", "resourceVersion"}));
  std::lock_guard lock(mu_);
  Written& w = by_uid_[uid];
  if (w.object == nullptr && w.version != 0) return;  // already deleted
  if (version < w.version) return;
  w = {std::make_shared<const Json>(std::move(object)), version, clock_.now()};
}

void RecentWrites::deleted(const std::string& uid) {
  if (uid.empty()) return;
  std::lock_guard lock(mu_);
  Written& w = by_uid_[uid];
  w.object = nullptr;
  w.version = std::max<std::uint64_t>(w.version, 1);
  w.at = clock_.now();
}

void RecentWrites::gone(const std::string& uid) {
  std::lock_guard lock(mu_);
  by_uid_.erase(uid);
}

Overlaid RecentWrites::overlay(const std::vector<std::shared_ptr<const kube::Unstructured>>& cached,
                               const std::function<bool(const Json&)>& belongs) {
  Overlaid out;
  std::lock_guard lock(mu_);
  const auto now = clock_.now();
  std::erase_if(by_uid_, [&](const auto& e) { return now - e.second.at > ttl_; });
  std::set<std::string> seen;
  for (const auto& item : cached) {
    const std::string uid = item->meta.uid.str();
    seen.insert(uid);
    auto w = by_uid_.find(uid);
    if (w == by_uid_.end()) {
      out.objects.push_back(&item->object);
      out.holders.push_back(item);
      continue;
    }
    if (!w->second.object) {  // deleted by us; the cache still has it
      if (item->meta.deletion_timestamp) {
        by_uid_.erase(w);
        out.objects.push_back(&item->object);
        out.holders.push_back(item);
      } else {
        auto marked = std::make_shared<Json>(item->object);
        (*marked)["metadata"]["deletionTimestamp"] = apimachinery::format_time(now);
        out.objects.push_back(marked.get());
        out.holders.push_back(std::move(marked));
      }
      continue;
    }
    if (version_number(item->meta.resource_version) >= w->second.version) {
      by_uid_.erase(w);  // the cache caught up
      out.objects.push_back(&item->object);
      out.holders.push_back(item);
      continue;
    }
    out.objects.push_back(w->second.object.get());
    out.holders.push_back(w->second.object);
  }
  for (const auto& [uid, w] : by_uid_) {
    if (!w.object || seen.contains(uid) || !belongs(*w.object)) continue;
    out.objects.push_back(w.object.get());
    out.holders.push_back(w.object);
  }
  return out;
}

}  // namespace respool::sandbox::sim
