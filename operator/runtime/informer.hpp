#pragma once
// An informer: lists a resource, then watches it from the list's resourceVersion, keeping a
// Store equal to the server's state and telling handlers about every change. A watch that ends
// or drops is resumed from the last version seen (bookmarks included); a 410 Gone relists and
// reconciles the store with the fresh list (deletes included), as client-go's reflector does.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/kube/decode.hpp"
#include "operator/runtime/cache_sync.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/log.hpp"
#include "operator/runtime/store.hpp"

namespace respool::runtime {

// What a controller needs of any informer, whatever it caches.
class InformerBase {
 public:
  virtual ~InformerBase() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual bool has_synced() const = 0;
  virtual const std::string& name() const = 0;
  virtual const kube::Resource& resource() const = 0;
  // The last list or watch that failed, until a list succeeds: why the cache has not synced.
  virtual std::optional<SyncFailure> last_failure() const = 0;
};

struct InformerOptions {
  kube::Resource resource{};
  std::string ns{};  // "" = all namespaces
  std::string label_selector{};
  std::string field_selector{};
  std::int64_t page_size = 500;
  kube::DecodeOptions decode{};
  // Each watch asks the server to end it after a random time in [min, 2*min), as client-go.
  std::chrono::seconds min_watch_timeout{300};
  std::chrono::milliseconds initial_backoff{800};
  std::chrono::milliseconds max_backoff{30'000};
};

struct InformerStats {
  std::uint64_t lists = 0;    // full lists (the first and every relist)
  std::uint64_t watches = 0;  // watch requests made
  std::uint64_t events = 0;   // watch events applied
  std::uint64_t errors = 0;   // failed lists or watches
};

template <class T>
class Informer final : public InformerBase {
 public:
  using Ptr = typename Store<T>::Ptr;
  struct Handlers {
    std::function<void(const Ptr&)> on_add;
    std::function<void(const Ptr& old, const Ptr& now)> on_update;
    std::function<void(const Ptr&)> on_delete;
  };
  // Trims an object further before it is cached (the transform hook).
  using Transform = std::function<void(T&)>;

  Informer(kube::Client& client, Clock& clock, InformerOptions options, Transform transform = {})
      : client_(client),
        clock_(clock),
        options_(std::move(options)),
        transform_(std::move(transform)),
        name_(options_.resource.qualified_name()) {}
  ~Informer() override { stop(); }

  Store<T>& store() { return store_; }
  const Store<T>& store() const { return store_; }
  const std::string& name() const override { return name_; }
  const kube::Resource& resource() const override { return options_.resource; }
  std::optional<SyncFailure> last_failure() const override {
    std::lock_guard lock(mu_);
    return failure_;
  }

  // Handlers are added before start(); they run on the informer's thread, in event order.
  void add_handlers(Handlers h) { handlers_.push_back(std::move(h)); }

  void start() override {
    std::lock_guard lock(mu_);
    if (thread_.joinable()) return;
    stopping_ = false;
    thread_ = std::thread([this] { run(); });
  }

  void stop() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      if (watch_) watch_->cancel();
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  bool has_synced() const override { return synced_.load(); }

  // Waits until the first list has been applied, or `timeout` (on the informer's clock).
  bool wait_for_sync(Duration timeout) {
    std::unique_lock lock(mu_);
    return clock_.wait_for(cv_, lock, timeout, [this] { return synced_.load() || stopping_; }) &&
           synced_.load();
  }

  // The resourceVersion the informer has seen last (list, event or bookmark).
  std::string last_resource_version() const {
    std::lock_guard lock(mu_);
    return last_rv_;
  }

  InformerStats stats() const {
    std::lock_guard lock(mu_);
    return stats_;
  }

 private:
  void run() {
    int failures = 0;
    bool need_list = true;
    while (!is_stopping()) {
      if (need_list) {
        auto listed = list_and_replace();
        if (!listed) {
          log::warn("informer", "list failed",
                    {{"resource", name_}, {"error", listed.error().describe()}});
          count_error("list", listed.error());
          if (!backoff(failures++)) return;
          continue;
        }
        need_list = false;
        failures = 0;
      }
      auto outcome = watch_once();
      if (outcome == WatchOutcome::Gone) {
        need_list = true;
        continue;
      }
      if (outcome == WatchOutcome::Failed) {
        if (!backoff(failures++)) return;
        continue;
      }
      failures = 0;  // ended cleanly: resume at once
    }
  }

  bool is_stopping() const {
    std::lock_guard lock(mu_);
    return stopping_;
  }

  void count_error(std::string verb, const kube::Error& error) {
    std::lock_guard lock(mu_);
    ++stats_.errors;
    failure_ = SyncFailure{std::move(verb), error};
  }

  // Waits before the next attempt; false when stopping.
  bool backoff(int failures) {
    auto delay = options_.initial_backoff * (1LL << std::min(failures, 10));
    if (delay > options_.max_backoff) delay = options_.max_backoff;
    std::unique_lock lock(mu_);
    std::uniform_real_distribution<double> jitter(1.0, 1.5);
    auto wait = std::chrono::duration_cast<Duration>(delay * jitter(rng_));
    clock_.wait_for(cv_, lock, wait, [this] { return stopping_; });
    return !stopping_;
  }

  void finish(T& object) {
    if (transform_) transform_(object);
  }

  // Lists every page and makes the store equal to the result, telling handlers the difference.
  kube::Result<void> list_and_replace() {
    kube::ListOptions list;
    list.label_selector = options_.label_selector;
    list.field_selector = options_.field_selector;
    list.limit = options_.page_size;
    std::vector<Ptr> fresh;  // no map: a relist of 300,000 pods would hold a key string each
    std::string rv;
    std::optional<kube::Error> decode_error;
    auto listed =
        client_.list_pages(options_.resource, options_.ns, list, [&](std::string_view page) {
          std::function<void(T &&)> on_item = [&](T&& item) {
            finish(item);
            fresh.push_back(std::make_shared<const T>(std::move(item)));
          };
          auto info = kube::decode_list_page<T>(page, options_.decode, on_item);
          if (!info) {
            decode_error = info.error();
            return false;
          }
          if (rv.empty()) rv = info->resource_version;
          return true;
        });
    if (!listed) return std::unexpected(listed.error());
    if (decode_error) return std::unexpected(*decode_error);

    // Deletions first (objects gone while we were not watching), then adds and updates.
    if (store_.size() > 0) {
      Store<T> in_list;  // what the list holds, keyed as the cache (no index)
      for (const auto& object : fresh)
        in_list.upsert(object);
      for (const auto& key : store_.keys()) {
        if (in_list.get(key)) continue;
        if (Ptr old = store_.remove(key)) notify_delete(old);
      }
    }
    for (auto& object : fresh) {
      Ptr old = store_.upsert(object);
      if (!old)
        notify_add(object);
      else if (old->meta.resource_version != object->meta.resource_version)
        notify_update(old, object);
    }
    {
      std::lock_guard lock(mu_);
      last_rv_ = rv;
      ++stats_.lists;
      failure_.reset();
      synced_ = true;
    }
    cv_.notify_all();
    return {};
  }

  enum class WatchOutcome { Ended, Gone, Failed };

  WatchOutcome watch_once() {
    kube::WatchOptions watch;
    watch.label_selector = options_.label_selector;
    watch.field_selector = options_.field_selector;
    watch.allow_bookmarks = true;
    {
      std::lock_guard lock(mu_);
      watch.resource_version = last_rv_;
      std::uniform_int_distribution<long> spread(0, options_.min_watch_timeout.count());
      watch.timeout_seconds = static_cast<int>(options_.min_watch_timeout.count() + spread(rng_));
      ++stats_.watches;
    }
    auto stream = client_.watch(options_.resource, options_.ns, watch);
    if (!stream) {
      if (stream.error().is(kube::Error::Kind::Gone)) return WatchOutcome::Gone;
      log::warn("informer", "watch failed",
                {{"resource", name_}, {"error", stream.error().describe()}});
      count_error("watch", stream.error());
      return WatchOutcome::Failed;
    }
    {
      std::lock_guard lock(mu_);
      if (stopping_) return WatchOutcome::Ended;
      watch_ = std::move(*stream);
    }
    // Nothing for longer than the watch's own timeout means the connection is dead.
    const auto idle = std::chrono::seconds(watch.timeout_seconds + 30);
    WatchOutcome outcome = WatchOutcome::Ended;
    for (;;) {
      auto line = watch_->next_line(idle);
      if (!line) {
        if (!line.error().is(kube::Error::Kind::Cancelled)) {
          log::info("informer", "watch interrupted",
                    {{"resource", name_}, {"error", line.error().describe()}});
          count_error("watch", line.error());
          outcome = WatchOutcome::Failed;
        }
        break;
      }
      if (!line->has_value()) break;  // the server ended the watch
      auto event = kube::decode_watch_event<T>(**line, options_.decode);
      if (!event) {
        log::warn("informer", "undecodable watch event",
                  {{"resource", name_}, {"error", event.error().describe()}});
        count_error("watch", event.error());
        outcome = WatchOutcome::Failed;
        break;
      }
      if (event->type == kube::WatchEvent<T>::Type::Error) {
        if (event->error->is(kube::Error::Kind::Gone)) {
          outcome = WatchOutcome::Gone;
        } else {
          log::warn("informer", "watch error event",
                    {{"resource", name_}, {"error", event->error->describe()}});
          count_error("watch", *event->error);
          outcome = WatchOutcome::Failed;
        }
        break;
      }
      apply(std::move(*event));
    }
    std::lock_guard lock(mu_);
    watch_.reset();
    return outcome;
  }

  void apply(kube::WatchEvent<T> event) {
    using Type = typename kube::WatchEvent<T>::Type;
    if (event.type != Type::Bookmark) {
      T& object = *event.object;
      finish(object);
      auto ptr = std::make_shared<const T>(std::move(object));
      if (event.type == Type::Deleted) {
        Ptr old = store_.remove(ptr->meta.key());
        notify_delete(ptr);
        (void)old;
      } else {
        Ptr old = store_.upsert(ptr);
        if (old)
          notify_update(old, ptr);
        else
          notify_add(ptr);
      }
    }
    std::lock_guard lock(mu_);
    if (!event.resource_version.empty()) last_rv_ = event.resource_version;
    ++stats_.events;
  }

  void notify_add(const Ptr& p) {
    for (auto& h : handlers_)
      if (h.on_add) h.on_add(p);
  }
  void notify_update(const Ptr& old, const Ptr& now) {
    for (auto& h : handlers_)
      if (h.on_update) h.on_update(old, now);
  }
  void notify_delete(const Ptr& p) {
    for (auto& h : handlers_)
      if (h.on_delete) h.on_delete(p);
  }

  kube::Client& client_;
  Clock& clock_;
  InformerOptions options_;
  Transform transform_;
  std::string name_;
  Store<T> store_;
  std::vector<Handlers> handlers_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::atomic<bool> synced_{false};
  std::string last_rv_;
  InformerStats stats_;
  std::optional<SyncFailure> failure_;
  std::unique_ptr<kube::WatchStream> watch_;
  std::mt19937 rng_{std::random_device{}()};
  std::thread thread_;
};

}  // namespace respool::runtime
