#pragma once
// The manager runs an operator's parts together, as controller-runtime's manager does: one API
// client, informers shared by the controllers (they run and sync whether or not this process
// leads, so a new leader starts with warm caches), leader election, the event recorder and the
// metrics registry. Controllers reconcile only while this process leads; on a lost lease the
// manager stops reconciling at once and run() returns non-zero.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/controller.hpp"
#include "operator/runtime/event_recorder.hpp"
#include "operator/runtime/informer.hpp"
#include "operator/runtime/leader_election.hpp"
#include "operator/runtime/metrics.hpp"
#include "operator/runtime/workqueue_metrics.hpp"

namespace respool::runtime {

struct ManagerOptions {
  kube::ClusterConfig cluster;
  kube::ClientOptions client;
  Clock* clock = nullptr;  // nullptr: the real clock
  std::string identity;    // "" = hostname + random suffix
  bool leader_elect = false;
  std::string leader_election_namespace = "respool-system";
  std::string leader_election_id = "respool-operator-leader";
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  Duration cache_sync_timeout = std::chrono::minutes(2);  // --cache-sync-timeout
  // While caches sync, the log lists the missing ones this often.
  Duration cache_sync_report_period = std::chrono::seconds(5);
  // How a CustomResourceDefinition the API server does not serve is installed, for the reasons
  // the manager gives (e.g. "install it with kubectl apply -f crds/").
  std::string install_crd_hint;
};

class Manager {
  // Made only by the static factory: the constructor is public for std::make_unique, and only
  // this class can make the Key it takes.
  struct Key {
    explicit Key() = default;
  };

 public:
  explicit Manager(Key) {}
  static kube::Result<std::unique_ptr<Manager>> create(ManagerOptions options);
  ~Manager();

  kube::Client& client() { return *client_; }
  Clock& clock() { return *clock_; }
  Registry& metrics() { return registry_; }
  EventRecorder& events() { return *events_; }
  const std::string& identity() const { return identity_; }

  // An informer owned by the manager and started by run().
  template <class T>
  Informer<T>& add_informer(InformerOptions options, typename Informer<T>::Transform t = {}) {
    auto informer =
        std::make_unique<Informer<T>>(*client_, *clock_, std::move(options), std::move(t));
    Informer<T>& ref = *informer;
    informers_.push_back(std::move(informer));
    return ref;
  }

  Controller& add_controller(Reconciler reconciler, ControllerOptions options);

  // Runs until stop() or a lost lease. Returns 0 after a clean stop (in-flight reconciles
  // finished, lease released), 1 when leadership was lost or the caches never synced.
  int run();
  // Thread-safe; run() returns soon after.
  void stop();

  // /readyz: caches synced and leadership known (led, or another leader seen).
  bool caches_synced() const;
  // Each cache that has not synced and why (explain_unsynced), in registration order.
  std::vector<std::string> unsynced_caches() const;
  // Why run() returned non-zero ("" while it runs or after a clean stop).
  std::string failure() const;
  bool leadership_known() const;
  bool is_leader() const;

 private:
  void start_controllers();
  // Waits until every cache has synced: false on a stop or at the sync timeout.
  bool wait_for_caches();

  std::unique_ptr<RealClock> own_clock_;
  Clock* clock_ = nullptr;
  std::unique_ptr<kube::Client> client_;
  Registry registry_;
  std::unique_ptr<WorkQueueMetrics> queue_metrics_;
  std::unique_ptr<ControllerMetrics> controller_metrics_;
  std::unique_ptr<EventRecorder> events_;
  std::vector<std::unique_ptr<InformerBase>> informers_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::unique_ptr<LeaderElector> elector_;
  ManagerOptions options_;
  std::string identity_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool lost_ = false;
  bool leading_ = false;
  std::string failure_;
  std::atomic<bool> synced_{false};
};

// "hostname_randomsuffix", unique per process.
std::string default_identity();

}  // namespace respool::runtime
