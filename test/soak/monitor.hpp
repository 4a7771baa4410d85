#pragma once
// The soak's eyes: its own watches (informers, which relist after a dropped watch or a 410 as
// the operator's do) of Nodes, ResourcePools, NodeOperations and the leader Lease, and a thread
// that checks the invariants on what they hold four times a second.

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/kube/objects.hpp"
#include "operator/runtime/informer.hpp"
#include "test/soak/invariants.hpp"
#include "test/soak/leadership.hpp"
#include "test/soak/node_history.hpp"

namespace respool::soak {

class Monitor {
 public:
  Monitor(kube::Client& client, Shares shares, std::string lease_namespace, std::string lease_name);
  ~Monitor();
  void start();          // returns once every watch has listed
  void stop_checking();  // the checks stop; the watches go on
  void stop();
  // Every version of every node: joins, leaves, and the claim breaches.
  const NodeHistory& node_history() const { return node_history_; }
  // The pools whose deletion the watch saw complete after it had seen respool's finalizer on
  // them: respool released those, and audits the release. A pool created and deleted before
  // respool took it in hand (no leader at the time) goes without respool, and without a record.
  std::set<std::string> deleted_pools() const;
  // Whether the watches' caches hold what a LIST returns now: pools and NodeOperations by
  // resourceVersion, nodes by their labels, taints and annotations. The difference, if any.
  std::string cache_difference(kube::Client& client) const;
  Snapshot snapshot() const;
  std::vector<Breach> breaches() const;
  LeaseHistory lease_history() const;
  std::size_t checks() const { return checks_.load(); }
  // The final checks, on a snapshot now.
  std::vector<Breach> check_final() const;

 private:
  using Informer = runtime::Informer<kube::Unstructured>;
  void run();

  std::unique_ptr<Informer> nodes_, pools_, operations_, leases_;
  NodeHistory node_history_;
  std::string lease_name_;
  Invariants invariants_;
  mutable std::mutex mu_;
  std::vector<Breach> breaches_;
  LeaseHistory leases_seen_;
  std::set<std::string> deleted_pools_;
  std::set<std::string> finalized_pools_;  // seen with respool's finalizer
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> checks_{0};
  std::thread thread_;
};

}  // namespace respool::soak
