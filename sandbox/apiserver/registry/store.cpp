#include "sandbox/apiserver/registry/store.hpp"

namespace respool::sandbox {

const char* to_string(EventType type) {
  switch (type) {
    case EventType::Added:
      return "ADDED";
    case EventType::Modified:
      return "MODIFIED";
    case EventType::Deleted:
      return "DELETED";
  }
  return "ERROR";
}

std::string to_text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::shared_ptr<const Json> StoredObject::obj() const {
  if (decoded) return decoded;
  if (!text) return std::make_shared<const Json>();
  return std::make_shared<const Json>(Json::parse(*text));
}

StoredObject StoredObject::of(Json object, std::uint64_t rv) {
  StoredObject s;
  s.rv = rv;
  s.text = std::make_shared<const std::string>(to_text(object));
  s.decoded = std::make_shared<const Json>(std::move(object));
  return s;
}

Store::Store(std::size_t history_limit) : history_limit_(history_limit ? history_limit : 1) {}

std::string Store::key(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string k;
  k.reserve(ns.size() + name.size() + 1);
  k.append(ns).append("/").append(name);
  return k;
}

std::shared_ptr<Collection> Store::find(std::string_view storage) const {
  auto it = collections_.find(storage);
  return it == collections_.end() ? nullptr : it->second;
}

std::shared_ptr<Collection> Store::collection(const std::string& storage) {
  auto& c = collections_[storage];
  if (!c) c = std::make_shared<Collection>();
  return c;
}

const StoredObject* Store::get(std::string_view storage, std::string_view key) const {
  auto c = collections_.find(storage);
  if (c == collections_.end()) return nullptr;
  auto it = c->second->items.find(key);
  return it == c->second->items.end() ? nullptr : &it->second;
}

namespace {

std::string_view namespace_of(std::string_view key) {
  auto slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view{} : key.substr(0, slash);
}

}  // namespace

StoredObject Store::put(const std::string& storage, const std::string& key,
                        const std::shared_ptr<Json>& obj, ObjectIndex index, bool keep_decoded) {
  auto c = collection(storage);
  std::uint64_t rv = ++rv_;
  (*obj)["metadata"]["resourceVersion"] = std::to_string(rv);
  StoredObject stored;
  stored.rv = rv;
  stored.text = std::make_shared<const std::string>(to_text(*obj));
  stored.index = std::make_shared<const ObjectIndex>(std::move(index));
  if (keep_decoded) stored.decoded = obj;  // the caller writes it no more

  HistoryEvent event;
  event.rv = rv;
  event.object = stored;
  auto it = c->items.find(key);
  if (it == c->items.end()) {
    event.type = EventType::Added;
    c->items.emplace(key, stored);
    ++c->per_namespace[std::string(namespace_of(key))];
  } else {
    event.type = EventType::Modified;
    event.previous = it->second;
    it->second = stored;
  }
  record(*c, std::move(event));
  return stored;
}

std::optional<StoredObject> Store::erase(const std::string& storage, const std::string& key) {
  auto c = find(storage);
  if (!c) return std::nullopt;
  auto it = c->items.find(key);
  if (it == c->items.end()) return std::nullopt;
  std::uint64_t rv = ++rv_;
  Json last = *it->second.obj();
  last["metadata"]["resourceVersion"] = std::to_string(rv);
  StoredObject gone;
  gone.rv = rv;
  gone.text = std::make_shared<const std::string>(to_text(last));
  gone.index = it->second.index;
  if (it->second.decoded) gone.decoded = std::make_shared<const Json>(std::move(last));

  HistoryEvent event;
  event.rv = rv;
  event.type = EventType::Deleted;
  event.object = gone;
  event.previous = it->second;
  auto ns = c->per_namespace.find(namespace_of(key));
  if (ns != c->per_namespace.end() && --ns->second == 0) c->per_namespace.erase(ns);
  c->items.erase(it);
  record(*c, std::move(event));
  return gone;
}

void Store::drop(const std::string& storage) {
  auto it = collections_.find(storage);
  if (it == collections_.end()) return;
  it->second->dropped = true;
  collections_.erase(it);
  changed_.notify_all();
}

void Store::record(Collection& c, HistoryEvent event) {
  c.history.push_back(std::move(event));
  while (c.history.size() > history_limit_) {
    c.horizon = c.history.front().rv;
    c.history.pop_front();
  }
  changed_.notify_all();
}

}  // namespace respool::sandbox
