#pragma once
// Hash-consed immutable values for the cache. The pods of one owner carry equal labels, owner
// references and resource requests, and the nodes of one flavor equal capacities: each distinct
// value is stored once, shared by every object that holds it, and freed with the last of them.
// Unlike an Atom's string, which lives for the process, a whole label set may be unique to one
// pod and must go when the pod goes.
//
// Thread safety: a value's holders count is changed without the table's lock while it stays
// above zero; the last release and every lookup take the lock, so a lookup never revives a
// value being freed.

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <utility>

#include "operator/kube/hash.hpp"

namespace respool::kube {

// Hash: a functor hashing a V; Equal: a functor comparing two Vs (exactly: equal values are
// interchangeable everywhere, formats included).
template <class V, class Hash, class Equal>
class SharedValue {
 public:
  SharedValue() = default;  // V{}, held by no entry
  explicit SharedValue(V value) {
    if (!(Equal{}(value, V{}))) entry_ = table().acquire(std::move(value));
  }
  SharedValue(const SharedValue& other) noexcept : entry_(other.entry_) {
    if (entry_) entry_->holders.fetch_add(1, std::memory_order_relaxed);
  }
  SharedValue(SharedValue&& other) noexcept : entry_(std::exchange(other.entry_, nullptr)) {}
  SharedValue& operator=(SharedValue other) noexcept {
    std::swap(entry_, other.entry_);
    return *this;
  }
  ~SharedValue() {
    if (entry_) table().release(entry_);
  }

  const V& get() const { return entry_ ? entry_->value : empty(); }
  // Equal values share one entry, so comparing entries compares values.
  friend bool operator==(const SharedValue& a, const SharedValue& b) {
    return a.entry_ == b.entry_;
  }

  // Distinct values held now (for benchmarks and tests).
  static std::size_t distinct() {
    std::lock_guard lock(table().mu);
    return table().entries.size();
  }

 private:
  struct Entry {
    Entry(V v, std::size_t h) : value(std::move(v)), hash(h) {}
    const V value;
    const std::size_t hash;
    std::atomic<std::size_t> holders{1};
  };
  // What a lookup probes the table with: a value not (yet) in an entry.
  struct Probe {
    const V* value;
    std::size_t hash;
  };
  struct EntryHash {
    using is_transparent = void;
    std::size_t operator()(const std::unique_ptr<Entry>& e) const noexcept { return e->hash; }
    std::size_t operator()(const Probe& p) const noexcept { return p.hash; }
  };
  struct EntryEqual {
    using is_transparent = void;
    bool operator()(const std::unique_ptr<Entry>& a, const std::unique_ptr<Entry>& b) const {
      return a == b;
    }
    bool operator()(const Probe& p, const std::unique_ptr<Entry>& e) const {
      return p.hash == e->hash && Equal{}(*p.value, e->value);
    }
    bool operator()(const std::unique_ptr<Entry>& e, const Probe& p) const { return (*this)(p, e); }
  };

  struct Table {
    std::mutex mu;
    std::unordered_set<std::unique_ptr<Entry>, EntryHash, EntryEqual> entries;

    Entry* acquire(V value) {
      const std::size_t hash = Hash{}(value);
      std::lock_guard lock(mu);
      auto it = entries.find(Probe{&value, hash});
      if (it != entries.end()) {
        (*it)->holders.fetch_add(1, std::memory_order_relaxed);
        return it->get();
      }
      return entries.emplace(std::make_unique<Entry>(std::move(value), hash)).first->get();
    }

    void release(Entry* entry) {
      // Not the last holder: no lock (the count cannot reach zero here).
      std::size_t n = entry->holders.load(std::memory_order_relaxed);
      while (n > 1) {
        if (entry->holders.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel)) return;
      }
      std::lock_guard lock(mu);
      if (entry->holders.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
      auto it = entries.find(Probe{&entry->value, entry->hash});
      entries.erase(it);  // the entry itself: values are unique in the table
    }
  };

  // Never destroyed: objects released during the process's exit (static ones, other threads'
  // caches) still find it.
  static Table& table() {
    alignas(Table) static unsigned char storage[sizeof(Table)];
    static Table* instance = std::construct_at(reinterpret_cast<Table*>(storage));
    return *instance;
  }
  static const V& empty() {
    static const V value{};
    return value;
  }

  Entry* entry_ = nullptr;
};

}  // namespace respool::kube
