#pragma once
// The informer's thread-safe, indexed cache. Readers get immutable snapshots
// (shared_ptr<const T>) that stay valid however the cache changes afterwards.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace respool::runtime {

template <class T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;
  // The values an object is indexed under (e.g. its pool label, its node name). Must depend on
  // the object alone.
  using IndexFunc = std::function<std::vector<std::string>(const T&)>;

  // Indexes are declared before the first write.
  void add_index(const std::string& name, IndexFunc func) {
    std::unique_lock lock(mu_);
    indexes_.emplace(name, Index{std::move(func), {}});
  }

  Ptr get(std::string_view key) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(std::string(key));
    return it == items_.end() ? nullptr : it->second;
  }

  std::vector<Ptr> list() const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [key, item] : items_)
      out.push_back(item);
    return out;
  }

  std::vector<std::string> keys() const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [key, item] : items_)
      out.push_back(key);
    return out;
  }

  // Objects indexed under `value` by index `name`; empty for an unknown index.
  std::vector<Ptr> by_index(std::string_view name, std::string_view value) const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    auto index = indexes_.find(std::string(name));
    if (index == indexes_.end()) return out;
    auto bucket = index->second.buckets.find(std::string(value));
    if (bucket == index->second.buckets.end()) return out;
    out.reserve(bucket->second.size());
    for (const std::string* key : bucket->second)
      out.push_back(items_.at(*key));
    return out;
  }

  // Calls fn on every object under a shared lock, without copying the list. fn must not call
  // back into the store.
  void for_each(const std::function<void(const T&)>& fn) const {
    std::shared_lock lock(mu_);
    for (const auto& [key, item] : items_)
      fn(*item);
  }

  std::size_t size() const {
    std::shared_lock lock(mu_);
    return items_.size();
  }

  // Inserts or replaces; returns the previous object, if any.
  Ptr upsert(const std::string& key, Ptr object) {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    Ptr old;
    if (it != items_.end()) {
      old = it->second;
      unindex(it->first, *old);
      it->second = std::move(object);
    } else {
      it = items_.emplace(key, std::move(object)).first;
    }
    index(it->first, *it->second);
    return old;
  }

  // Removes; returns the removed object, if any.
  Ptr remove(std::string_view key) {
    std::unique_lock lock(mu_);
    auto it = items_.find(std::string(key));
    if (it == items_.end()) return nullptr;
    Ptr old = it->second;
    unindex(it->first, *old);
    items_.erase(it);
    return old;
  }

 private:
  struct Index {
    IndexFunc func;
    // Index value → keys (pointers to the keys of items_, which never move).
    std::unordered_map<std::string, std::unordered_set<const std::string*>> buckets;
  };

  void index(const std::string& key, const T& object) {
    for (auto& [name, idx] : indexes_) {
      for (auto& value : idx.func(object))
        idx.buckets[std::move(value)].insert(&key);
    }
  }

  void unindex(const std::string& key, const T& object) {
    for (auto& [name, idx] : indexes_) {
      for (const auto& value : idx.func(object)) {
        auto bucket = idx.buckets.find(value);
        if (bucket == idx.buckets.end()) continue;
        bucket->second.erase(&key);
        if (bucket->second.empty()) idx.buckets.erase(bucket);
      }
    }
  }

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, Ptr> items_;
  std::map<std::string, Index, std::less<>> indexes_;
};

}  // namespace respool::runtime
