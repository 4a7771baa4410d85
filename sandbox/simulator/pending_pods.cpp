#include "sandbox/simulator/pending_pods.hpp"

#include <set>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"

namespace respool::sandbox::sim {

using Json = nlohmann::json;

void PendingPods::created(const std::string& owner, Json pod) {
  const std::string uid = string_at(pod, {"metadata", "uid"});
  if (uid.empty()) return;
  std::lock_guard lock(mu_);
  created_[uid] = {owner, std::make_shared<const Json>(std::move(pod)), clock_.now()};
}

void PendingPods::deleted(const std::string& owner, const std::string& pod_uid) {
  if (pod_uid.empty()) return;
  std::lock_guard lock(mu_);
  deleted_[pod_uid] = {owner, clock_.now()};
}

void PendingPods::observe(const Json& pod) {
  const std::string uid = string_at(pod, {"metadata", "uid"});
  std::lock_guard lock(mu_);
  created_.erase(uid);
  if (!at_path(pod, {"metadata", "deletionTimestamp"}).is_null()) deleted_.erase(uid);
}

void PendingPods::follow(runtime::Informer<kube::Unstructured>& pods) {
  runtime::Informer<kube::Unstructured>::Handlers seen;
  seen.on_add = [this](const auto& pod) { observe(pod->object); };
  seen.on_update = [this](const auto&, const auto& pod) { observe(pod->object); };
  seen.on_delete = [this](const auto& pod) { observe_gone(pod->object); };
  pods.add_handlers(std::move(seen));
}

void PendingPods::observe_gone(const Json& pod) {
  const std::string uid = string_at(pod, {"metadata", "uid"});
  std::lock_guard lock(mu_);
  created_.erase(uid);
  deleted_.erase(uid);
}

bool PendingPods::empty() const {
  std::lock_guard lock(mu_);
  return created_.empty() && deleted_.empty();
}

void PendingPods::expire_locked(runtime::TimePoint now) {
  std::erase_if(created_, [&](const auto& e) { return now - e.second.at > ttl_; });
  std::erase_if(deleted_, [&](const auto& e) { return now - e.second.at > ttl_; });
}

OwnedPods PendingPods::overlay(
    const std::string& owner,
    const std::vector<std::shared_ptr<const kube::Unstructured>>& cached) {
  OwnedPods out;
  std::lock_guard lock(mu_);
  const auto now = clock_.now();
  expire_locked(now);
  std::set<std::string> seen;
  for (const auto& item : cached) {
    const std::string uid = item->meta.uid.str();
    seen.insert(uid);
    created_.erase(uid);  // the cache has it now
    auto d = deleted_.find(uid);
    if (d != deleted_.end() && item->meta.deletion_timestamp) deleted_.erase(d), d = deleted_.end();
    if (d != deleted_.end()) {
      auto marked = std::make_shared<Json>(item->object);
      (*marked)["metadata"]["deletionTimestamp"] = apimachinery::format_time(now);
      out.pods.push_back(marked.get());
      out.holders.push_back(std::move(marked));
      continue;
    }
    out.pods.push_back(&item->object);
    out.holders.push_back(item);
  }
  for (const auto& [uid, c] : created_) {
    if (c.owner != owner || seen.contains(uid) || deleted_.contains(uid)) continue;
    out.pods.push_back(c.pod.get());
    out.holders.push_back(c.pod);
  }
  return out;
}

}  // namespace respool::sandbox::sim
