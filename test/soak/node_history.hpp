#pragma once
// Every version of every Node, in order, as one watch stream delivers them (resumed from the
// last version after a dropped watch, so none is missed), for what a sampled snapshot cannot
// see: a node released by one pool and claimed by another within a quarter of a second is
// fine; a node whose pool label goes from one pool to another in one write is the "claim"
// breach. Only after a 410 (a relist) can versions be missed: a change across it is not judged.

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "operator/kube/client.hpp"
#include "test/soak/invariants.hpp"

namespace respool::soak {

class NodeHistory {
 public:
  explicit NodeHistory(kube::Client& client) : client_(client) {}
  ~NodeHistory() { stop(); }
  void start();
  void stop();
  std::vector<Breach> breaches() const;
  // (pool, node) of every join and leave seen.
  std::vector<std::pair<std::string, std::string>> joins() const;
  std::vector<std::pair<std::string, std::string>> leaves() const;
  int relists() const { return relists_.load(); }
  std::size_t versions() const { return versions_.load(); }

 private:
  void run();
  bool list();                       // false: try again
  bool watch(std::string& outcome);  // false: relist (410) or retry
  void seen(const Json& node, bool across_gap);

  kube::Client& client_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> relists_{0};
  std::atomic<std::size_t> versions_{0};
  std::unique_ptr<kube::WatchStream> stream_;
  mutable std::mutex mu_;
  std::string resource_version_;
  std::map<std::string, std::string> pool_of_;
  std::vector<Breach> breaches_;
  std::vector<std::pair<std::string, std::string>> joins_, leaves_;
  std::thread thread_;
};

}  // namespace respool::soak
