#pragma once
// The object store: collections of objects kept as their serialized text with a small decoded
// index (what lists, selectors and watches read), one global resourceVersion, and a bounded
// history of changes per collection for watches.
//
// Lean (issue 30): a decoded nlohmann::json costs about eight times its text, so an object is
// decoded only where one object is read (a write, a subresource, a reaction), from its text;
// the kinds read whole on every request (RBAC's, for authorization; CRDs) keep theirs decoded.
//
// One mutex guards everything; callers lock it (mutex()) around compound operations and never
// hold it while writing to a socket. Objects are immutable once stored (shared_ptr<const>), so
// a list or a watch copies pointers under the lock and serializes after releasing it.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace respool::sandbox {

using Json = nlohmann::json;

// What selectors and watches read of a stored object without decoding it.
struct ObjectIndex {
  std::string ns;
  std::string name;
  std::string uid;  // metadata.uid (the collector's and by-uid lookups')
  std::string api_version;
  Json labels = Json::object();  // metadata.labels
  // The field-selector values (kinds::field_values) of the kind it was stored as, by field.
  std::vector<std::pair<std::string, std::string>> fields;
  int fields_of = -1;  // that kind's KindId; a converted view's fields are computed instead
  std::vector<std::string> owners;  // the uids its ownerReferences name (the collector's)
};

struct StoredObject {
  std::shared_ptr<const std::string> text;  // the object serialized, compact
  std::shared_ptr<const ObjectIndex> index;
  std::shared_ptr<const Json> decoded;  // kept decoded (RBAC, CRDs, results never stored) or null
  std::uint64_t rv = 0;

  // The object: the kept one, else decoded from the text now. Hold the pointer while reading
  // into it (`auto o = s.obj(); const Json& x = (*o)["spec"];`).
  std::shared_ptr<const Json> obj() const;
  // An object never stored (a dry run's result): decoded and serialized, no index.
  static StoredObject of(Json object, std::uint64_t rv);
};

enum class EventType { Added, Modified, Deleted };
const char* to_string(EventType type);

struct HistoryEvent {
  std::uint64_t rv = 0;
  EventType type = EventType::Added;
  StoredObject object;    // Deleted: the last state, carrying the deletion's rv
  StoredObject previous;  // the state before the change; no text for Added
};

struct Collection {
  std::map<std::string, StoredObject, std::less<>> items;  // "ns/name" (namespaced) or "name"
  std::map<std::string, std::size_t, std::less<>> per_namespace;
  std::deque<HistoryEvent> history;
  std::uint64_t horizon = 0;  // the last rv dropped from history; watches from before fail
  bool dropped = false;       // its type is no longer served (CRD deleted)
};

// Serializes a JSON value as the API answers it; invalid UTF-8 is replaced, never thrown.
std::string to_text(const Json& value);

class Store {
 public:
  explicit Store(std::size_t history_limit);

  std::mutex& mutex() { return mu_; }
  // Notified on every change, on close_watches and on stop.
  std::condition_variable& changed() { return changed_; }

  // Everything below needs mutex() held.
  std::uint64_t rv() const { return rv_; }
  std::shared_ptr<Collection> find(std::string_view storage) const;
  std::shared_ptr<Collection> collection(const std::string& storage);
  const StoredObject* get(std::string_view storage, std::string_view key) const;
  // Stores obj under key with a new resourceVersion (written into metadata), records ADDED or
  // MODIFIED, and wakes watchers. `keep_decoded`: the object is kept decoded beside its text.
  StoredObject put(const std::string& storage, const std::string& key,
                   const std::shared_ptr<Json>& obj, ObjectIndex index, bool keep_decoded);
  // Removes key, recording DELETED with a new resourceVersion. Nothing when absent.
  std::optional<StoredObject> erase(const std::string& storage, const std::string& key);
  // Forgets a collection (its watchers see dropped and end).
  void drop(const std::string& storage);
  std::size_t history_limit() const { return history_limit_; }

  static std::string key(std::string_view ns, std::string_view name);

 private:
  void record(Collection& c, HistoryEvent event);

  std::mutex mu_;
  std::condition_variable changed_;
  std::uint64_t rv_ = 0;
  std::size_t history_limit_;
  std::map<std::string, std::shared_ptr<Collection>, std::less<>> collections_;
};

}  // namespace respool::sandbox
