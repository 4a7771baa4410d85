#include "test/soak/monitor.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "operator/runtime/clock.hpp"

namespace respool::soak {

namespace {

std::unique_ptr<runtime::Informer<kube::Unstructured>> watch(kube::Client& client,
                                                             const kube::Resource& resource,
                                                             std::string ns = "") {
  runtime::InformerOptions options;
  options.resource = resource;
  options.ns = std::move(ns);
  options.min_watch_timeout = std::chrono::seconds(60);
  options.max_backoff = std::chrono::milliseconds(2000);
  return std::make_unique<runtime::Informer<kube::Unstructured>>(client, runtime::real_clock(),
                                                                 options);
}

std::vector<Json> objects(const runtime::Informer<kube::Unstructured>& informer) {
  std::vector<Json> out;
  for (const auto& item : informer.store().list())
    out.push_back(item->object);
  return out;
}

constexpr std::string_view kPoolFinalizer = "respool.io/release-nodes";  // API.md

}  // namespace

Monitor::Monitor(kube::Client& client, Shares shares, std::string lease_namespace,
                 std::string lease_name)
    : nodes_(watch(client, kube::resources::nodes)),
      pools_(watch(client, kube::resources::resourcepools)),
      operations_(watch(client, kube::resources::nodeoperations)),
      leases_(watch(client, kube::resources::leases, std::move(lease_namespace))),
      node_history_(client),
      lease_name_(std::move(lease_name)),
      invariants_(shares) {
  auto seen = [this](const Informer::Ptr& lease) {
    if (lease->meta.name != lease_name_) return;
    std::lock_guard lock(mu_);
    leases_seen_.observe(lease->object);
  };
  leases_->add_handlers(
      {seen, [seen](const Informer::Ptr&, const Informer::Ptr& now) { seen(now); }, {}});
  auto finalized = [this](const Informer::Ptr& pool) {
    const auto& f = pool->meta.finalizers;
    if (std::find(f.begin(), f.end(), kPoolFinalizer) == f.end()) return;
    std::lock_guard lock(mu_);
    finalized_pools_.insert(pool->meta.name);
  };
  pools_->add_handlers(
      {finalized, [finalized](const Informer::Ptr&, const Informer::Ptr& now) { finalized(now); },
       [this](const Informer::Ptr& pool) {
         std::lock_guard lock(mu_);
         if (finalized_pools_.erase(pool->meta.name) > 0) deleted_pools_.insert(pool->meta.name);
       }});
}

std::set<std::string> Monitor::deleted_pools() const {
  std::lock_guard lock(mu_);
  return deleted_pools_;
}

Monitor::~Monitor() {
  stop();
}

void Monitor::start() {
  for (auto* i : {nodes_.get(), pools_.get(), operations_.get(), leases_.get()})
    i->start();
  for (auto* i : {nodes_.get(), pools_.get(), operations_.get(), leases_.get()}) {
    if (!i->wait_for_sync(std::chrono::seconds(60)))
      throw std::runtime_error("the soak's watch of " + i->name() + " never listed");
  }
  node_history_.start();
  thread_ = std::thread([this] { run(); });
}

void Monitor::stop_checking() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void Monitor::stop() {
  stop_checking();
  node_history_.stop();
  for (auto* i : {nodes_.get(), pools_.get(), operations_.get(), leases_.get()})
    i->stop();
}

Snapshot Monitor::snapshot() const {
  return {objects(*nodes_), objects(*pools_), objects(*operations_), Clock::now()};
}

void Monitor::run() {
  while (!stopping_) {
    auto found = invariants_.check(snapshot());
    ++checks_;
    if (!found.empty()) {
      std::lock_guard lock(mu_);
      breaches_.insert(breaches_.end(), found.begin(), found.end());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

std::vector<Breach> Monitor::breaches() const {
  std::vector<Breach> out = node_history_.breaches();
  std::lock_guard lock(mu_);
  out.insert(out.end(), breaches_.begin(), breaches_.end());
  return out;
}

LeaseHistory Monitor::lease_history() const {
  std::lock_guard lock(mu_);
  return leases_seen_;
}

std::vector<Breach> Monitor::check_final() const {
  return invariants_.check_final(snapshot());
}

}  // namespace respool::soak

namespace respool::soak {

namespace {

// name → what is compared of it.
std::map<std::string, std::string> comparable(const std::vector<Json>& items, bool node) {
  std::map<std::string, std::string> out;
  for (const Json& o : items) {
    const Json& m = o["metadata"];
    std::string what =
        node ? m.value("labels", Json::object()).dump() +
                   m.value("annotations", Json::object()).dump() +
                   o.value("spec", Json::object()).value("taints", Json::array()).dump()
             : m.value("resourceVersion", "");
    out[m.value("name", "")] = std::move(what);
  }
  return out;
}

std::string differs(const std::string& kind, const std::map<std::string, std::string>& cached,
                    const std::map<std::string, std::string>& listed) {
  for (const auto& [name, what] : listed) {
    auto it = cached.find(name);
    if (it == cached.end()) return kind + " " + name + " is on the server, not in the cache";
    if (it->second != what)
      return kind + " " + name + " differs: cache " + it->second + ", server " + what;
  }
  for (const auto& [name, what] : cached)
    if (!listed.contains(name)) return kind + " " + name + " is in the cache, gone from the server";
  return "";
}

}  // namespace

std::string Monitor::cache_difference(kube::Client& client) const {
  std::string last;
  for (int attempt = 0; attempt < 40; ++attempt) {
    if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const Snapshot cached = snapshot();
    auto nodes = client.list(kube::resources::nodes, "");
    auto pools = client.list(kube::resources::resourcepools, "");
    auto operations = client.list(kube::resources::nodeoperations, "");
    if (!nodes || !pools || !operations) {
      last = "cannot list to compare";
      continue;
    }
    auto items = [](const Json& list) {
      return list.value("items", Json::array()).get<std::vector<Json>>();
    };
    last = differs("node", comparable(cached.nodes, true), comparable(items(*nodes), true));
    if (last.empty())
      last = differs("pool", comparable(cached.pools, false), comparable(items(*pools), false));
    if (last.empty())
      last = differs("NodeOperation", comparable(cached.operations, false),
                     comparable(items(*operations), false));
    if (last.empty()) return "";
  }
  return last;
}

}  // namespace respool::soak
