#include <limits>
#include <stdexcept>

#include "operator/runtime/metrics.hpp"

namespace respool::runtime {

// The collectors of one registry. Held by shared_ptr so that a registration can outlive the
// registry; `mutex` is held while collectors run, so unregistering waits for a run to end.
struct CollectorRegistration::Set {
  std::mutex mutex;
  std::uint64_t next_id = 1;
  std::map<std::uint64_t, std::function<void()>> updates;
};

CollectorRegistration::CollectorRegistration(std::weak_ptr<Set> set, std::uint64_t id)
    : set_(std::move(set)), id_(id) {}

CollectorRegistration::CollectorRegistration(CollectorRegistration&& other) noexcept
    : set_(std::move(other.set_)), id_(other.id_) {
  other.id_ = 0;
}

CollectorRegistration& CollectorRegistration::operator=(CollectorRegistration&& other) noexcept {
  if (this != &other) {
    reset();
    set_ = std::move(other.set_);
    id_ = other.id_;
    other.id_ = 0;
  }
  return *this;
}

CollectorRegistration::~CollectorRegistration() {
  reset();
}

void CollectorRegistration::reset() {
  if (id_ == 0) return;
  if (const auto set = set_.lock()) {
    std::lock_guard guard(set->mutex);
    set->updates.erase(id_);
  }
  set_.reset();
  id_ = 0;
}

Registry::Registry() : collectors_(std::make_shared<CollectorRegistration::Set>()) {}

Registry::~Registry() = default;

FamilyBase& Registry::add(std::unique_ptr<FamilyBase> family, const std::vector<double>* buckets) {
  std::lock_guard guard(mutex_);
  const auto it = families_.find(family->name());
  if (it == families_.end()) {
    return *families_.emplace(family->name(), std::move(family)).first->second;
  }
  FamilyBase& existing = *it->second;
  const bool same = existing.type() == family->type() && existing.help() == family->help() &&
                    existing.label_names() == family->label_names() &&
                    (buckets == nullptr || existing.buckets() == *buckets);
  if (!same) {
    throw std::invalid_argument("metric " + family->name() +
                                " is already registered with another type, help or labels");
  }
  return existing;
}

CounterFamily& Registry::counter(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names) {
  const bool unlabelled = label_names.empty();
  auto& family = static_cast<CounterFamily&>(
      add(std::make_unique<CounterFamily>(name, help, std::move(label_names)), nullptr));
  if (unlabelled) family.with({});
  return family;
}

GaugeFamily& Registry::gauge(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names) {
  const bool unlabelled = label_names.empty();
  auto& family = static_cast<GaugeFamily&>(
      add(std::make_unique<GaugeFamily>(name, help, std::move(label_names)), nullptr));
  if (unlabelled) family.with({});
  return family;
}

HistogramFamily& Registry::histogram(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> buckets) {
  // client_golang accepts and drops a final +Inf: it is always implied.
  if (!buckets.empty() && buckets.back() == std::numeric_limits<double>::infinity()) {
    buckets.pop_back();
  }
  const bool unlabelled = label_names.empty();
  auto fresh = std::make_unique<HistogramFamily>(name, help, std::move(label_names), buckets);
  auto& family = static_cast<HistogramFamily&>(add(std::move(fresh), &buckets));
  if (unlabelled) family.with({});
  return family;
}

CollectorRegistration Registry::add_collector(std::function<void()> update) {
  std::lock_guard guard(collectors_->mutex);
  const std::uint64_t id = collectors_->next_id++;
  collectors_->updates.emplace(id, std::move(update));
  return CollectorRegistration(collectors_, id);
}

std::string Registry::render() const {
  {
    std::lock_guard guard(collectors_->mutex);
    for (const auto& [id, update] : collectors_->updates)
      update();
  }
  std::string out;
  std::lock_guard guard(mutex_);
  for (const auto& [name, family] : families_)
    family->render(out);
  return out;
}

}  // namespace respool::runtime
