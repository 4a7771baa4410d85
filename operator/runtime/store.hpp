#pragma once
// The informer's thread-safe, indexed cache. Readers get immutable snapshots
// (shared_ptr<const T>) that stay valid however the cache changes afterwards.

#include <algorithm>
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

#include "operator/kube/hash.hpp"

namespace respool::runtime {

// A cache key, "namespace/name" or "name" for cluster-scoped objects, read without building a
// string: namespaces and names cannot hold a '/'.
struct ObjectKey {
  std::string_view ns;
  std::string_view name;

  static ObjectKey parse(std::string_view key) {
    auto slash = key.find('/');
    if (slash == std::string_view::npos) return {{}, key};
    return {key.substr(0, slash), key.substr(slash + 1)};
  }
  template <class T>
  static ObjectKey of(const T& object) {
    return {object.meta.namespace_.view(), object.meta.name};
  }
  std::size_t hash() const noexcept {
    return kube::hash_mix(std::hash<std::string_view>{}(name), std::hash<std::string_view>{}(ns));
  }
  friend bool operator==(const ObjectKey&, const ObjectKey&) = default;
};

// Objects are keyed by their own namespace and name, so that the cache holds no copy of the
// key: a pod's key string and map node cost more than half its compact form.
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
    auto it = items_.find(ObjectKey::parse(key));
    return it == items_.end() ? nullptr : it->object;
  }

  std::vector<Ptr> list() const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& slot : items_)
      out.push_back(slot.object);
    return out;
  }

  std::vector<std::string> keys() const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& slot : items_)
      out.push_back(slot.object->meta.key());
    return out;
  }

  // Objects indexed under `value` by index `name`; empty for an unknown index.
  std::vector<Ptr> by_index(std::string_view name, std::string_view value) const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    auto index = indexes_.find(name);
    if (index == indexes_.end()) return out;
    auto bucket = index->second.buckets.find(value);
    if (bucket == index->second.buckets.end()) return out;
    out.reserve(bucket->second.size());
    for (const T* object : bucket->second)
      out.push_back(items_.find(ObjectKey::of(*object))->object);
    return out;
  }

  // Calls fn on every object under a shared lock, without copying the list. fn must not call
  // back into the store.
  void for_each(const std::function<void(const T&)>& fn) const {
    std::shared_lock lock(mu_);
    for (const auto& slot : items_)
      fn(*slot.object);
  }

  std::size_t size() const {
    std::shared_lock lock(mu_);
    return items_.size();
  }

  // Inserts or replaces the object of the same namespace and name; returns the previous one.
  Ptr upsert(Ptr object) {
    std::unique_lock lock(mu_);
    auto it = items_.find(ObjectKey::of(*object));
    Ptr old;
    if (it != items_.end()) {
      old = it->object;
      unindex(*old);
      it->object = std::move(object);  // same key: the slot stays where it hashes
    } else {
      it = items_.insert(Slot{std::move(object)}).first;
    }
    index(*it->object);
    return old;
  }

  // Removes; returns the removed object, if any.
  Ptr remove(std::string_view key) {
    std::unique_lock lock(mu_);
    auto it = items_.find(ObjectKey::parse(key));
    if (it == items_.end()) return nullptr;
    Ptr old = it->object;
    unindex(*old);
    items_.erase(it);
    return old;
  }

 private:
  struct Slot {
    mutable Ptr object;  // replaced in place by an object of the same key
  };
  struct SlotHash {
    using is_transparent = void;
    std::size_t operator()(const Slot& s) const noexcept { return ObjectKey::of(*s.object).hash(); }
    std::size_t operator()(const ObjectKey& k) const noexcept { return k.hash(); }
  };
  struct SlotEqual {
    using is_transparent = void;
    static ObjectKey key(const Slot& s) { return ObjectKey::of(*s.object); }
    static const ObjectKey& key(const ObjectKey& k) { return k; }
    bool operator()(const auto& a, const auto& b) const { return key(a) == key(b); }
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  struct Index {
    IndexFunc func;
    // Index value → the objects under it (small buckets: a node's pods, a job's pods).
    std::unordered_map<std::string, std::vector<const T*>, StringHash, std::equal_to<>> buckets;
  };

  // The values of an object under one index, each once.
  static std::vector<std::string> values(const Index& idx, const T& object) {
    auto out = idx.func(object);
    if (out.size() > 1) {
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
    return out;
  }

  void index(const T& object) {
    for (auto& [name, idx] : indexes_) {
      for (auto& value : values(idx, object))
        idx.buckets[std::move(value)].push_back(&object);
    }
  }

  void unindex(const T& object) {
    for (auto& [name, idx] : indexes_) {
      for (const auto& value : values(idx, object)) {
        auto bucket = idx.buckets.find(value);
        if (bucket == idx.buckets.end()) continue;
        auto& objects = bucket->second;
        auto at = std::find(objects.begin(), objects.end(), &object);
        if (at == objects.end()) continue;
        *at = objects.back();
        objects.pop_back();
        if (objects.empty()) idx.buckets.erase(bucket);
      }
    }
  }

  mutable std::shared_mutex mu_;
  std::unordered_set<Slot, SlotHash, SlotEqual> items_;
  std::map<std::string, Index, std::less<>> indexes_;
};

}  // namespace respool::runtime
