#pragma once
// Pods a controller created or deleted that its informer has not shown yet (client-go's
// ControllerExpectations, keeping the objects themselves). A reconcile that runs before the
// watch catches up sees the cache with these writes laid over it, so that it neither creates a
// pod twice nor deletes past a rolling update's budget. Entries end when the informer shows the
// write, or after a time-to-live (a write the watch never reports must not block forever).

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/kube/objects.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/informer.hpp"

namespace respool::sandbox::sim {

// An owner's pods for one reconcile: the pointers stay valid while this object lives.
struct OwnedPods {
  std::vector<const nlohmann::json*> pods;
  std::vector<std::shared_ptr<const void>> holders;
};

class PendingPods {
 public:
  PendingPods(runtime::Clock& clock, runtime::Duration ttl) : clock_(clock), ttl_(ttl) {}

  // `pod` as the API returned it.
  void created(const std::string& owner, nlohmann::json pod);
  void deleted(const std::string& owner, const std::string& pod_uid);

  // Informer handlers: a pod seen (added or updated) or gone.
  void observe(const nlohmann::json& pod);
  void observe_gone(const nlohmann::json& pod);
  // Registers both on the pods informer; before the owner's own handlers, so that a reconcile
  // the event brings finds its expectation already met.
  void follow(runtime::Informer<kube::Unstructured>& pods);

  // `cached` (the owner's pods in the informer cache) with the pending writes laid over:
  // created pods not yet cached added, deleted ones carrying a deletionTimestamp.
  OwnedPods overlay(const std::string& owner,
                    const std::vector<std::shared_ptr<const kube::Unstructured>>& cached);

  bool empty() const;

 private:
  struct Created {
    std::string owner;
    std::shared_ptr<const nlohmann::json> pod;
    runtime::TimePoint at;
  };
  struct Deleted {
    std::string owner;
    runtime::TimePoint at;
  };
  void expire_locked(runtime::TimePoint now);

  runtime::Clock& clock_;
  runtime::Duration ttl_;
  mutable std::mutex mu_;
  std::map<std::string, Created> created_;  // by pod uid
  std::map<std::string, Deleted> deleted_;  // by pod uid
};

}  // namespace respool::sandbox::sim
