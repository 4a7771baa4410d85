#pragma once
// The resourceVersions of a controller's own writes that its cache has not shown yet. A
// controller that decides again from a cache behind its last write decides from the world as it
// was before that write: a node operation would mark again a node it has just restored, or admit
// from a ledger it has just replaced. Like client-go's expectations, but for writes of whole
// objects: until the cache holds the written version (or a later one), the controller waits.
//
// resourceVersions are opaque to clients, with one exception used here: kube-apiserver's are
// etcd revisions, decimal integers that grow. A cached version that is a larger integer than
// the written one is later; anything else is "seen" only when equal, or after kTimeout.

#include <charconv>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "operator/runtime/clock.hpp"

namespace respool::reconcilers {

class WrittenVersions {
 public:
  static constexpr std::chrono::seconds kTimeout{10};

  // `key` names the object ("nodeoperations/op-1"), `group` what waits on it (the pool).
  void wrote(const std::string& group, const std::string& key, const std::string& version,
             runtime::TimePoint now) {
    if (version.empty()) return;
    std::lock_guard lock(mu_);
    entries_[key] = Entry{group, version, now};
  }

  // Drops what `cached(key)` shows (the cached version, or nullopt for a gone object) and what
  // expired; true while a write of `group` is still missing from the cache.
  template <class Cached>
  bool behind(const std::string& group, runtime::TimePoint now, Cached cached) {
    std::lock_guard lock(mu_);
    bool waiting = false;
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.group != group) {
        ++it;
        continue;
      }
      const std::optional<std::string> seen = cached(it->first);
      if (!seen || reached(*seen, it->second.version) || now - it->second.at > kTimeout) {
        it = entries_.erase(it);
      } else {
        waiting = true;
        ++it;
      }
    }
    return waiting;
  }

  static bool reached(const std::string& cached, const std::string& written) {
    if (cached == written) return true;
    std::uint64_t c = 0, w = 0;
    auto [pc, ec] = std::from_chars(cached.data(), cached.data() + cached.size(), c);
    auto [pw, ew] = std::from_chars(written.data(), written.data() + written.size(), w);
    const bool numbers = ec == std::errc() && ew == std::errc() &&
                         pc == cached.data() + cached.size() &&
                         pw == written.data() + written.size();
    return numbers && c > w;
  }

 private:
  struct Entry {
    std::string group;
    std::string version;
    runtime::TimePoint at{};
  };
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace respool::reconcilers
