#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics: a candidate
// takes the lease when it is free or when its holder has not renewed it for leaseDuration
// (measured on the candidate's own clock from when it last saw the record change, so clock
// skew between processes does not matter); the leader renews every retryPeriod and gives up
// leadership when it could not renew for renewDeadline. On a clean stop it releases the lease
// so that another candidate takes over at once.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "operator/kube/client.hpp"
#include "operator/runtime/clock.hpp"

namespace respool::runtime {

struct LeaseRecord {
  std::string holder;
  int lease_duration_seconds = 0;
  TimePoint acquire_time{};
  TimePoint renew_time{};
  int transitions = 0;

  friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};

LeaseRecord lease_record_from(const kube::Json& lease);
kube::Json lease_spec_from(const LeaseRecord& record);

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // unique per process: hostname + random suffix
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  bool release_on_stop = true;
};

// The pure decision: may `identity` take or renew a lease whose record is `current`, which
// this candidate first saw in this form at `observed_at`?
bool may_acquire(const LeaseRecord& current, const std::string& identity, TimePoint observed_at,
                 TimePoint now);

class LeaderElector {
 public:
  struct Callbacks {
    std::function<void()> on_started_leading;  // on the elector's thread; must return quickly
    std::function<void()> on_stopped_leading;  // lost (renew failed) or stopped after leading
    std::function<void(const std::string&)> on_new_leader;  // any holder change seen
  };

  LeaderElector(kube::Client& client, Clock& clock, LeaderElectionConfig config,
                Callbacks callbacks);
  ~LeaderElector();

  void start();
  // Stops campaigning; a leader releases the lease (when configured) before this returns.
  void stop();
  bool is_leader() const { return leader_.load(); }
  // True once the elector knows whether it leads (it led once, or saw another holder).
  bool leadership_known() const { return known_.load(); }
  // True when leadership was lost by failing to renew (not by stop()).
  bool lost() const { return lost_.load(); }

 private:
  void run();
  bool try_acquire_or_renew();
  void release();
  bool wait(Duration d);  // false when stopping

  kube::Client& client_;
  Clock& clock_;
  LeaderElectionConfig config_;
  Callbacks callbacks_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
  std::atomic<bool> leader_{false};
  std::atomic<bool> known_{false};
  std::atomic<bool> lost_{false};

  // Last record seen, and when (on our clock) it was first seen in that form.
  std::optional<LeaseRecord> observed_;
  std::string observed_resource_version_;
  TimePoint observed_at_{};
  std::string last_holder_;
};

}  // namespace respool::runtime
