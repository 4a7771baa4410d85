#pragma once
// Objects a controller created, changed or deleted that its informer may not show yet (what
// pending_pods.hpp does for pods, for any kind and with updates too). A Deployment that just
// scaled a ReplicaSet must not scale it again from a stale cache; a CronJob that just created a
// Job must not create it twice. A write is laid over the cache until the cache holds that
// resourceVersion or a later one (resourceVersions of the sandbox are increasing integers), or
// until a time-to-live passes.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/kube/objects.hpp"
#include "operator/runtime/clock.hpp"

namespace respool::sandbox::sim {

// Objects for one reconcile: the pointers stay valid while this object lives.
struct Overlaid {
  std::vector<const nlohmann::json*> objects;
  std::vector<std::shared_ptr<const void>> holders;
};

class RecentWrites {
 public:
  RecentWrites(runtime::Clock& clock, runtime::Duration ttl) : clock_(clock), ttl_(ttl) {}

  // `object` as the API server answered a create or an update.
  void wrote(nlohmann::json object);
  void deleted(const std::string& uid);
  // The informer saw the object go: nothing of it is laid over any more.
  void gone(const std::string& uid);

  // `cached` with the writes laid over: newer written versions replace cached ones, created
  // objects not cached yet are added when `belongs` says they are wanted, deleted ones carry a
  // deletionTimestamp.
  Overlaid overlay(const std::vector<std::shared_ptr<const kube::Unstructured>>& cached,
                   const std::function<bool(const nlohmann::json&)>& belongs);

 private:
  struct Written {
    std::shared_ptr<const nlohmann::json> object;  // null: deleted
    std::uint64_t version = 0;
    runtime::TimePoint at;
  };

  runtime::Clock& clock_;
  runtime::Duration ttl_;
  std::mutex mu_;
  std::map<std::string, Written> by_uid_;
};

// A resourceVersion as a number (0 when it is not one).
std::uint64_t version_number(std::string_view resource_version);

}  // namespace respool::sandbox::sim
