#pragma once
// What people ask of respool during the soak, one seeded step at a time: pools created,
// resized and deleted, Replace, Reset and Delete NodeOperations, driver upgrades (Secure and
// Force, rolling), fault-tolerant training Jobs (some that hang), and node faults that come
// and go. A step the API refuses (a 409, an injected 500) is counted and the soak goes on.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "operator/kube/client.hpp"
#include "test/soak/invariants.hpp"
#include "test/soak/rng.hpp"

namespace respool::soak {

inline const std::vector<std::string> kDriverVersions = {"535.104.05", "550.54.15"};

class Workload {
 public:
  Workload(kube::Client& client, Rng rng, int max_pools);
  // The shared Network and the namespace of the training Jobs.
  void prepare();
  // One action on `now` (the cluster as the soak's watches see it), and the heals due.
  void step(const Snapshot& now);
  // Every node fault healed, every training Job deleted (the end of the schedule).
  void wind_down(const Snapshot& now);
  const std::map<std::string, int>& done() const { return done_; }
  const std::map<std::string, int>& refused() const { return refused_; }
  // Pools the soak created and then deleted, and those it created.
  const std::vector<std::string>& created_pools() const { return created_; }

 private:
  struct Heal {
    std::string node;
    std::chrono::steady_clock::time_point at;
  };
  void create_pool();
  void delete_pool(const Snapshot& s);
  void resize(const Snapshot& s);
  void node_operation(const Snapshot& s, const std::string& type);
  void driver_upgrade(const Snapshot& s);
  void training_job(const Snapshot& s);
  void node_fault(const Snapshot& s);
  void heal_due(bool all);
  std::vector<std::string> pool_nodes(const Snapshot& s, const std::string& pool) const;
  const Json* some_pool(const Snapshot& s, bool running_only);
  void count(const std::string& what, bool ok);

  kube::Client& client_;
  Rng rng_;
  int max_pools_;
  int next_pool_ = 1;
  int next_operation_ = 1;
  int next_job_ = 1;
  std::vector<std::string> created_;
  std::vector<std::string> jobs_;
  std::vector<Heal> heals_;
  std::map<std::string, int> done_;
  std::map<std::string, int> refused_;
};

}  // namespace respool::soak
