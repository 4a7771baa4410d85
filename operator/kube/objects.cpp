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

std::size_t AtomPairsHash::operator()(
    const std::vector<std::pair<Atom, Atom>>& items) const noexcept {
  std::size_t h = items.size();
  for (const auto& [k, v] : items) {
    h = hash_mix(h, std::hash<const void*>{}(k.id()));
    h = hash_mix(h, std::hash<const void*>{}(v.id()));
  }
  return h;
}

std::size_t QuantitiesHash::operator()(
    const std::vector<std::pair<Atom, apimachinery::Quantity>>& items) const noexcept {
  std::size_t h = items.size();
  for (const auto& [name, q] : items) {
    h = hash_mix(h, std::hash<const void*>{}(name.id()));
    h = hash_mix(h, std::hash<std::int64_t>{}(q.milli()));
  }
  return h;
}

bool QuantitiesEqual::operator()(
    const std::vector<std::pair<Atom, apimachinery::Quantity>>& a,
    const std::vector<std::pair<Atom, apimachinery::Quantity>>& b) const {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.first == y.first && x.second == y.second && x.second.format() == y.second.format();
  });
}

std::size_t OwnerReferencesHash::operator()(
    const std::vector<OwnerReference>& refs) const noexcept {
  std::size_t h = refs.size();
  for (const auto& r : refs) {
    for (const Atom* a : {&r.api_version, &r.kind, &r.name, &r.uid})
      h = hash_mix(h, std::hash<const void*>{}(a->id()));
    h = hash_mix(h, r.controller ? 1 : 0);
  }
  return h;
}

void OwnerReferences::push_back(OwnerReference ref) {
  Items items = this->items();
  items.push_back(std::move(ref));
  *this = OwnerReferences(std::move(items));
}

StringMap::StringMap(Items items) {
  // Stable: of equal keys, the last stays last, and unique keeps the first of a run.
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.first.view() < b.first.view(); });
  std::reverse(items.begin(), items.end());
  auto last = std::unique(items.begin(), items.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; });
  items.erase(last, items.end());
  std::reverse(items.begin(), items.end());
  items_ = SharedValue<Items, AtomPairsHash, std::equal_to<Items>>(std::move(items));
}

void StringMap::set(std::string_view key, std::string_view value) {
  Items items = this->items();
  auto it = lower_bound_key(items, key);
  if (it != items.end() && it->first == key) {
    it->second = Atom(value);
  } else {
    items.emplace(it, Atom(key), Atom(value));
  }
  items_ = SharedValue<Items, AtomPairsHash, std::equal_to<Items>>(std::move(items));
}

std::optional<std::string_view> StringMap::get(std::string_view key) const {
  const Items& items = this->items();
  auto it = lower_bound_key(items, key);
  if (it != items.end() && it->first == key) return it->second.view();
  return std::nullopt;
}

nlohmann::json StringMap::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : items())
    out[k.str()] = v.str();
  return out;
}

ResourceList::ResourceList(Items items)
    : items_(SharedValue<Items, QuantitiesHash, QuantitiesEqual>(std::move(items))) {}

void ResourceList::set_in(Items& items, std::string_view name, apimachinery::Quantity q) {
  for (auto& [n, value] : items) {
    if (n == name) {
      value = q;
      return;
    }
  }
  items.emplace_back(Atom(name), q);
}

apimachinery::Quantity ResourceList::get_in(const Items& items, std::string_view name) {
  for (const auto& [n, value] : items) {
    if (n == name) return value;
  }
  return {};
}

void ResourceList::set(std::string_view name, apimachinery::Quantity q) {
  Items items = this->items();
  set_in(items, name, q);
  *this = ResourceList(std::move(items));
}

void ResourceList::add(std::string_view name, apimachinery::Quantity q) {
  set(name, get(name) + q);
}

apimachinery::Quantity ResourceList::get(std::string_view name) const {
  return get_in(items(), name);
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
    StringMap::Items items;
    for (const auto& [k, v] : f->items()) {
      if (v.is_string()) items.emplace_back(Atom(k), Atom(v.get_ref<const std::string&>()));
    }
    (std::string_view(key) == "labels" ? m.labels : m.annotations) = StringMap(std::move(items));
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
    OwnerReferences::Items refs;
    for (const auto& r : *f) {
      if (!r.is_object()) continue;
      OwnerReference ref;
      ref.api_version = Atom(r.value("apiVersion", ""));
      ref.kind = Atom(r.value("kind", ""));
      ref.name = Atom(r.value("name", ""));
      ref.uid = Atom(r.value("uid", ""));
      ref.controller = r.value("controller", false);
      refs.push_back(std::move(ref));
    }
    m.owner_references = OwnerReferences(std::move(refs));
  }
  return m;
}

}  // namespace respool::kube
