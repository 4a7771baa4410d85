#pragma once
// The one way a controller waits for its own writes to reach its cache. A controller that
// decides again from a cache behind its last write decides from the world as it was before that
// write: a pool would claim again the node it has just claimed (or another in its place), a node
// operation would mark again a node it has just restored, a driver upgrade would hand the same
// batch slot out twice. Like client-go's expectations, but by resourceVersion: after a write the
// controller notes the version the server answered; until its cache holds that version (or a
// later one), or the object is gone, or kTimeout passes, the group (a pool) waits.
//
// resourceVersions are opaque to clients, with one exception used here: kube-apiserver's are
// etcd revisions, decimal integers that grow. A cached version that is a larger integer than
// the written one is later; anything else is "seen" only when equal, or after kTimeout.
//
// Instances: the node claims and releases of a pool (Context::node_writes, shared by the pool and
// NodeOperation controllers, which both claim into a pool); the NodeOperation controller's own
// writes of pool status and operations; the driver upgrade's node states.

#include <charconv>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "operator/runtime/clock.hpp"

namespace respool::reconcilers {

class WrittenVersions {
 public:
  // Past this, a write the cache never showed no longer holds its group back: the watch may
  // have dropped it, and a relist brings the truth either way. Guarded writes (resourceVersion,
  // claims) keep a decision from a stale cache from doing harm meanwhile.
  static constexpr std::chrono::seconds kTimeout{30};

  // `key` names the object ("nodes/n-1", or a node's name where only nodes are kept), `group`
  // what waits on it (the pool).
  void wrote(const std::string& group, const std::string& key, const std::string& version,
             runtime::TimePoint now) {
    if (version.empty()) return;
    std::lock_guard lock(mu_);
    entries_[key] = Entry{group, version, now};
  }
  // The version in an API answer (the written object).
  void wrote_answer(const std::string& group, const std::string& key, const nlohmann::json& written,
                    runtime::TimePoint now) {
    wrote(group, key,
          written.value("metadata", nlohmann::json::object()).value("resourceVersion", ""), now);
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

  // Forgets every write of `group` (a pool that is gone).
  void forget(const std::string& group) {
    std::lock_guard lock(mu_);
    std::erase_if(entries_, [&](const auto& entry) { return entry.second.group == group; });
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
