#pragma once
// Nodes claimed or released that no written status records yet. The P9 record of an operation
// names its nodes, but the status write that carries them can lose a race with the cache (a
// 409 on a stale resourceVersion); the nodes are kept here until a write succeeds, so that the
// retry records them instead of forgetting them.

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace respool::reconcilers {

class UnrecordedNodes {
 public:
  struct Nodes {
    std::vector<std::string> claimed, released;
  };

  // Adds this reconcile's nodes and returns everything not yet recorded, sorted.
  Nodes add(const std::string& pool, const std::vector<std::string>& claimed,
            const std::vector<std::string>& released) {
    std::lock_guard lock(mu_);
    auto& entry = pools_[pool];
    entry.claimed.insert(claimed.begin(), claimed.end());
    entry.released.insert(released.begin(), released.end());
    Nodes out{{entry.claimed.begin(), entry.claimed.end()},
              {entry.released.begin(), entry.released.end()}};
    if (entry.claimed.empty() && entry.released.empty()) pools_.erase(pool);
    return out;
  }
  // True once per pool and process: the first look at a pool is the only moment claims of an
  // earlier run can be found unrecorded. Later, the cache's copy of the pool may lag behind a
  // status this run wrote, and this run's own recorded claims would look unrecorded.
  bool first_look(const std::string& pool) {
    std::lock_guard lock(mu_);
    return looked_.insert(pool).second;
  }
  // A status carrying them was written.
  void recorded(const std::string& pool) {
    std::lock_guard lock(mu_);
    pools_.erase(pool);
  }
  // The pool is gone.
  void forget(const std::string& pool) {
    std::lock_guard lock(mu_);
    pools_.erase(pool);
    looked_.erase(pool);
  }

 private:
  struct Entry {
    std::set<std::string> claimed, released;
  };
  std::mutex mu_;
  std::map<std::string, Entry> pools_;
  std::set<std::string> looked_;
};

}  // namespace respool::reconcilers
