#include "operator/runtime/leader_election.hpp"

#include "apimachinery/time.hpp"
#include "operator/runtime/log.hpp"

namespace respool::runtime {

LeaseRecord lease_record_from(const kube::Json& lease) {
  LeaseRecord r;
  auto spec = lease.value("spec", kube::Json::object());
  r.holder = spec.value("holderIdentity", "");
  r.lease_duration_seconds = spec.value("leaseDurationSeconds", 0);
  r.acquire_time = apimachinery::parse_time(spec.value("acquireTime", "")).value_or(TimePoint{});
  r.renew_time = apimachinery::parse_time(spec.value("renewTime", "")).value_or(TimePoint{});
  r.transitions = spec.value("leaseTransitions", 0);
  return r;
}

kube::Json lease_spec_from(const LeaseRecord& r) {
  kube::Json spec = {{"holderIdentity", r.holder},
                     {"leaseDurationSeconds", r.lease_duration_seconds},
                     {"acquireTime", apimachinery::format_micro_time(r.acquire_time)},
                     {"renewTime", apimachinery::format_micro_time(r.renew_time)},
                     {"leaseTransitions", r.transitions}};
  return spec;
}

bool may_acquire(const LeaseRecord& current, const std::string& identity, TimePoint observed_at,
                 TimePoint now) {
  if (current.holder.empty() || current.holder == identity) return true;
  return observed_at + std::chrono::seconds(current.lease_duration_seconds) <= now;
}

LeaderElector::LeaderElector(kube::Client& client, Clock& clock, LeaderElectionConfig config,
                             Callbacks callbacks)
    : client_(client),
      clock_(clock),
      config_(std::move(config)),
      callbacks_(std::move(callbacks)) {}

LeaderElector::~LeaderElector() {
  stop();
}

void LeaderElector::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::wait(Duration d) {
  std::unique_lock lock(mu_);
  clock_.wait_for(cv_, lock, d, [this] { return stopping_; });
  return !stopping_;
}

void LeaderElector::run() {
  const std::string lease = config_.lease_namespace + "/" + config_.lease_name;
  log::info("leader-election", "campaigning", {{"lease", lease}, {"identity", config_.identity}});
  // Acquire.
  for (;;) {
    if (try_acquire_or_renew()) break;
    if (!wait(config_.retry_period)) return;
  }
  leader_ = true;
  known_ = true;
  log::info("leader-election", "became leader", {{"lease", lease}, {"identity", config_.identity}});
  if (callbacks_.on_started_leading) callbacks_.on_started_leading();

  // Renew; give up once no renewal succeeded for renew_deadline.
  TimePoint last_renew = clock_.now();
  while (wait(config_.retry_period)) {
    if (try_acquire_or_renew()) {
      last_renew = clock_.now();
      continue;
    }
    if (clock_.now() - last_renew >= config_.renew_deadline) {
      leader_ = false;
      lost_ = true;
      log::error("leader-election", "leadership lost: the lease could not be renewed",
                 {{"lease", lease}, {"identity", config_.identity}});
      if (callbacks_.on_stopped_leading) callbacks_.on_stopped_leading();
      return;
    }
  }
  if (config_.release_on_stop) release();
  leader_ = false;
  if (callbacks_.on_stopped_leading) callbacks_.on_stopped_leading();
}

bool LeaderElector::try_acquire_or_renew() {
  const TimePoint now = clock_.now();
  auto current = client_.get(kube::resources::leases, config_.lease_namespace, config_.lease_name);
  if (!current) {
    if (!current.error().is(kube::Error::Kind::NotFound)) {
      log::warn("leader-election", "cannot read the lease",
                {{"error", current.error().describe()}});
      return false;
    }
    LeaseRecord mine{
        config_.identity,
        static_cast<int>(
            std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count()),
        now, now, 0};
    kube::Json object = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
        {"spec", lease_spec_from(mine)}};
    auto created = client_.create(kube::resources::leases, config_.lease_namespace, object);
    if (!created) {
      // Another candidate creating it first is the race every election has; anything else (a
      // missing RBAC verb, say) would otherwise leave this replica campaigning without a word.
      if (!created.error().is(kube::Error::Kind::AlreadyExists)) {
        log::warn("leader-election", "cannot create the lease",
                  {{"error", created.error().describe()}});
      }
      return false;
    }
    observed_ = mine;
    observed_resource_version_ = (*created)["metadata"].value("resourceVersion", "");
    observed_at_ = now;
    return true;
  }
  LeaseRecord record = lease_record_from(*current);
  if (!observed_ || !(*observed_ == record)) {
    observed_ = record;
    observed_at_ = now;
  }
  if (record.holder != last_holder_) {
    last_holder_ = record.holder;
    if (!record.holder.empty() && record.holder != config_.identity) known_ = true;
    if (callbacks_.on_new_leader) callbacks_.on_new_leader(record.holder);
  }
  if (!may_acquire(record, config_.identity, observed_at_, now)) return false;

  LeaseRecord mine = record;
  mine.lease_duration_seconds = static_cast<int>(
      std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count());
  mine.renew_time = now;
  if (record.holder != config_.identity) {
    mine.holder = config_.identity;
    mine.acquire_time = now;
    mine.transitions = record.transitions + 1;
  }
  kube::Json updated = *current;
  updated["spec"] = lease_spec_from(mine);
  auto written = client_.update(kube::resources::leases, config_.lease_namespace, updated);
  if (!written) {
    if (!written.error().is(kube::Error::Kind::Conflict)) {
      log::warn("leader-election", "cannot update the lease",
                {{"error", written.error().describe()}});
    }
    return false;
  }
  observed_ = mine;
  observed_at_ = now;
  return true;
}

void LeaderElector::release() {
  auto current = client_.get(kube::resources::leases, config_.lease_namespace, config_.lease_name);
  if (!current) return;
  LeaseRecord record = lease_record_from(*current);
  if (record.holder != config_.identity) return;
  const TimePoint now = clock_.now();
  LeaseRecord released{"", 1, now, now, record.transitions};
  kube::Json updated = *current;
  updated["spec"] = lease_spec_from(released);
  if (auto r = client_.update(kube::resources::leases, config_.lease_namespace, updated); !r) {
    log::warn("leader-election", "cannot release the lease", {{"error", r.error().describe()}});
    return;
  }
  log::info("leader-election", "released the lease", {{"identity", config_.identity}});
}

}  // namespace respool::runtime
