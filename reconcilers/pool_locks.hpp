#pragma once
// One lock per pool, held by every controller while it reconciles that pool: the pool
// controller and the node-operation controller both claim nodes into a pool and read its
// admission window (P6), and each decides from what the other has written only when they take
// turns. (The work queue already keeps one controller from reconciling a key twice at once.)
// A pool's mutex lives as long as the operator: a few bytes per pool name ever seen.

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace respool::reconcilers {

class PoolLocks {
 public:
  std::unique_lock<std::mutex> lock(const std::string& pool) {
    std::mutex* m = nullptr;
    {
      std::lock_guard guard(mu_);
      auto& slot = locks_[pool];
      if (!slot) slot = std::make_unique<std::mutex>();
      m = slot.get();
    }
    return std::unique_lock<std::mutex>(*m);
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<std::mutex>> locks_;
};

}  // namespace respool::reconcilers
