#pragma once
// Writes the cache has not shown yet. After claiming or releasing a node the informer needs a
// moment to see it; planning again before that would count the node twice (claim it again, or
// claim another in its place). As client-go's ReplicaSet controller does, the reconciler notes
// what it expects and does not plan new node changes until the cache agrees or the expectation
// expires.

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "operator/runtime/clock.hpp"

namespace respool::reconcilers {

class Expectations {
 public:
  enum class Kind { InPool, Released };

  void expect(const std::string& pool, const std::string& node, Kind kind, runtime::TimePoint now);
  // Drops what `seen` confirms and what expired; true while anything is still pending.
  // `seen(node, kind)` says whether the cache shows the node as expected.
  template <class Seen>
  bool pending(const std::string& pool, runtime::TimePoint now, Seen seen) {
    std::lock_guard lock(mu_);
    auto it = pools_.find(pool);
    if (it == pools_.end()) return false;
    for (auto e = it->second.begin(); e != it->second.end();) {
      if (seen(e->first, e->second.kind) || now - e->second.since > kTimeout) {
        e = it->second.erase(e);
      } else {
        ++e;
      }
    }
    if (it->second.empty()) {
      pools_.erase(it);
      return false;
    }
    return true;
  }
  void forget(const std::string& pool);

  static constexpr std::chrono::seconds kTimeout{60};

 private:
  struct Entry {
    Kind kind;
    runtime::TimePoint since;
  };
  std::mutex mu_;
  std::map<std::string, std::map<std::string, Entry>> pools_;
};

inline void Expectations::expect(const std::string& pool, const std::string& node, Kind kind,
                                 runtime::TimePoint now) {
  std::lock_guard lock(mu_);
  pools_[pool][node] = Entry{kind, now};
}

inline void Expectations::forget(const std::string& pool) {
  std::lock_guard lock(mu_);
  pools_.erase(pool);
}

}  // namespace respool::reconcilers
