#include "operator/kube/objects.hpp"

namespace respool::kube {

namespace {
template <class Items>
auto lower_bound_key(Items& items, std::string_view key) {
  return std::lower_bound(
      items.begin(), items.end(), key,
      [](const auto& item, std::string_view k) { return item.first.view() < k; });
}
}  // namespace

void StringMap::set(std::string_view key, std::string_view value) {
  auto it = lower_bound_key(items_, key);
  if (it != items_.end() && it->first == key) {
    it->second = Atom(value);
  } else {
    items_.emplace(it, Atom(key), Atom(value));
  }
}

std::optional<std::string_view> StringMap::get(std::string_view key) const {
  auto it = lower_bound_key(items_, key);
  if (it != items_.end() && it->first == key) return it->second.view();
  return std::nullopt;
}

nlohmann::json StringMap::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : items_)
    out[k.str()] = v.str();
  return out;
}

void ResourceList::set(std::string_view name, apimachinery::Quantity q) {
  for (auto& [n, value] : items_) {
    if (n == name) {
      value = q;
      return;
    }
  }
  items_.emplace_back(Atom(name), q);
}

void ResourceList::add(std::string_view name, apimachinery::Quantity q) {
  set(name, get(name) + q);
}

apimachinery::Quantity ResourceList::get(std::string_view name) const {
  for (const auto& [n, value] : items_) {
    if (n == name) return value;
  }
  return {};
}

std::string ObjectMeta::key() const {
  if (namespace_.empty()) return name;
  std::string key;
  key.reserve(namespace_.view().size() + 1 + name.size());
  key += namespace_.view();
  key += '/';
  key += name;
  return key;
}

const OwnerReference* ObjectMeta::controller_ref() const {
  for (const auto& ref : owner_references) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

const Taint* Node::find_taint(std::string_view key) const {
  for (const auto& t : taints) {
    if (t.key == key) return &t;
  }
  return nullptr;
}

bool Node::has_taint(std::string_view key) const {
  return find_taint(key) != nullptr;
}

bool Pod::owned_by_daemonset() const {
  const auto* ref = meta.controller_ref();
  return ref && ref->kind == "DaemonSet";
}

ObjectMeta meta_from_json(const nlohmann::json& object) {
  ObjectMeta m;
  auto it = object.find("metadata");
  if (it == object.end() || !it->is_object()) return m;
  const auto& meta = *it;
  auto str = [&](const char* key) -> std::string {
    auto f = meta.find(key);
    return f != meta.end() && f->is_string() ? f->get<std::string>() : std::string();
  };
  m.name = str("name");
  m.namespace_ = Atom(str("namespace"));
  m.uid = str("uid");
  m.resource_version = str("resourceVersion");
  if (auto g = meta.find("generation"); g != meta.end() && g->is_number_integer()) {
    m.generation = g->get<std::int64_t>();
  }
  for (const char* key : {"labels", "annotations"}) {
    auto f = meta.find(key);
    if (f == meta.end() || !f->is_object()) continue;
    StringMap& into = std::string_view(key) == "labels" ? m.labels : m.annotations;
    for (const auto& [k, v] : f->items()) {
      if (v.is_string()) into.set(k, v.get_ref<const std::string&>());
    }
  }
  m.creation_timestamp = apimachinery::parse_time(str("creationTimestamp")).value_or(TimePoint{});
  if (auto d = str("deletionTimestamp"); !d.empty())
    m.deletion_timestamp = apimachinery::parse_time(d);
  if (auto f = meta.find("finalizers"); f != meta.end() && f->is_array()) {
    for (const auto& v : *f) {
      if (v.is_string()) m.finalizers.push_back(v.get<std::string>());
    }
  }
  if (auto f = meta.find("ownerReferences"); f != meta.end() && f->is_array()) {
    for (const auto& r : *f) {
      if (!r.is_object()) continue;
      OwnerReference ref;
      ref.api_version = Atom(r.value("apiVersion", ""));
      ref.kind = Atom(r.value("kind", ""));
      ref.name = Atom(r.value("name", ""));
      ref.uid = Atom(r.value("uid", ""));
      ref.controller = r.value("controller", false);
      m.owner_references.push_back(std::move(ref));
    }
  }
  return m;
}

}  // namespace respool::kube
