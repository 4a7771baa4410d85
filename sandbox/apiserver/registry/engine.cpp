// The engine's reads (get, list with selectors and paging), its bookkeeping of writes, and the
// reactions of the folded-in controllers to every change.

#include "sandbox/apiserver/registry/engine.hpp"

#include "apimachinery/base64.hpp"
#include "apimachinery/time.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox {

Result<Selectors> parse_selectors(const ResourceType& type, std::string_view label_selector,
                                  std::string_view field_selector) {
  Selectors s;
  if (!label_selector.empty()) {
    auto parsed = kube::LabelSelector::parse(label_selector);
    if (!parsed) return std::unexpected(bad_request(parsed.error()));
    s.labels = std::move(*parsed);
  }
  if (!field_selector.empty()) {
    auto parsed = kube::FieldSelector::parse(field_selector);
    if (!parsed) return std::unexpected(bad_request(parsed.error()));
    for (const kube::FieldRequirement& r : parsed->requirements()) {
      if (!kinds::field_supported(type, r.field)) {
        return std::unexpected(bad_request(kinds::unsupported_field_message(type, r.field)));
      }
    }
    s.fields = std::move(*parsed);
  }
  return s;
}

namespace {

std::vector<std::string> owner_uids(const Json& obj) {
  std::vector<std::string> out;
  if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].is_object()) return out;
  const Json& m = obj["metadata"];
  if (!m.contains("ownerReferences") || !m["ownerReferences"].is_array()) return out;
  for (const Json& ref : m["ownerReferences"]) {
    if (ref.is_object() && ref.contains("uid") && ref["uid"].is_string()) {
      out.push_back(ref["uid"].get<std::string>());
    }
  }
  return out;
}

ObjectIndex index_of(const ResourceType& type, const Json& obj) {
  ObjectIndex index;
  index.ns = object_namespace(obj);
  index.name = object_name(obj);
  index.uid = object_uid(obj);
  if (!obj.is_object()) return index;
  index.api_version = obj.value("apiVersion", std::string());
  if (auto meta = obj.find("metadata"); meta != obj.end() && meta->is_object()) {
    if (auto labels = meta->find("labels"); labels != meta->end() && labels->is_object())
      index.labels = *labels;
  }
  for (auto& [field, value] : kinds::field_values(type, obj))
    index.fields.emplace_back(field, std::move(value));
  // A CRD's versions may select on different fields: a custom object's are read from it.
  index.fields_of = type.custom() ? -1 : static_cast<int>(type.id);
  index.owners = owner_uids(obj);
  return index;
}

}  // namespace

bool selected(const ResourceType& type, const StoredObject& stored, const Selectors& selectors) {
  const bool by_fields = selectors.fields && !selectors.fields->empty();
  // The index answers for the kind it was made for; another view of the storage (events.k8s.io
  // of core Events) or of a custom object, or an object never stored, is indexed now.
  std::shared_ptr<const ObjectIndex> index = stored.index;
  if (!index || (by_fields && index->fields_of != static_cast<int>(type.id)))
    index = std::make_shared<const ObjectIndex>(index_of(type, *stored.obj()));
  if (selectors.labels && !selectors.labels->empty() && !selectors.labels->matches(index->labels))
    return false;
  if (!by_fields) return true;
  kube::Lookup lookup = [&index](std::string_view key) -> std::optional<std::string_view> {
    for (const auto& [field, value] : index->fields)
      if (field == key) return std::string_view(value);
    return std::nullopt;
  };
  return selectors.fields->matches(lookup);
}

Engine::Engine(runtime::Clock& clock, std::size_t watch_history)
    : clock_(clock), store_(watch_history) {}

void Engine::bootstrap() {
  std::unique_lock lock(store_.mutex());
  TypePtr ns = registry_.find("", "v1", "namespaces");
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    if (store_.get(ns->storage, name)) continue;
    Json obj = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    (void)create_locked(*ns, "", std::move(obj), WriteOptions{});
  }
  bootstrap_rbac();
}

Result<StoredObject> Engine::get(const ResourceType& type, const std::string& ns,
                                 const std::string& name) {
  std::unique_lock lock(store_.mutex());
  return get_locked(type, ns, name);
}

Result<StoredObject> Engine::get_locked(const ResourceType& type, const std::string& ns,
                                        const std::string& name) {
  const StoredObject* found = store_.get(type.storage, Store::key(type.namespaced ? ns : "", name));
  if (!found) return std::unexpected(not_found(type.gr(), name));
  return *found;
}

namespace {

struct ContinueToken {
  std::uint64_t rv = 0;
  std::string start;  // the first key to return
  std::size_t consumed = 0;
};

std::string encode_continue(const ContinueToken& t) {
  Json j = {{"v", "meta.k8s.io/v1"}, {"rv", t.rv}, {"start", t.start}, {"n", t.consumed}};
  return apimachinery::base64_encode(to_text(j));
}

Result<ContinueToken> decode_continue(const std::string& text) {
  const auto decoded = apimachinery::base64_decode(text);
  if (!decoded) {
    return std::unexpected(bad_request("continue key is not valid: illegal base64 data"));
  }
  Json j = Json::parse(*decoded, nullptr, false);
  if (!j.is_object() || j.value("v", std::string()) != "meta.k8s.io/v1" || !j.contains("rv") ||
      !j["rv"].is_number_unsigned() || !j.contains("start") || !j["start"].is_string()) {
    return std::unexpected(
        bad_request("continue key is not valid: incorrect encoded start resourceVersion (version "
                    "meta.k8s.io/v1)"));
  }
  ContinueToken t;
  t.rv = j["rv"].get<std::uint64_t>();
  t.start = j["start"].get<std::string>();
  if (j.contains("n") && j["n"].is_number_unsigned()) t.consumed = j["n"].get<std::size_t>();
  return t;
}

const char* kContinueTooOld =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the "
    "first chunk was returned and now may show up in the list.";

}  // namespace

Result<ListResult> Engine::list(const ResourceType& type, const std::string& ns,
                                const ListOptions& options) {
  std::unique_lock lock(store_.mutex());
  ListResult result;
  result.rv = store_.rv();
  ContinueToken token;
  bool continuing = !options.continue_token.empty();
  auto coll = store_.find(type.storage);
  if (continuing) {
    auto decoded = decode_continue(options.continue_token);
    if (!decoded) return std::unexpected(decoded.error());
    token = *decoded;
    if (coll && token.rv < coll->horizon) {
      ApiError e = expired(kContinueTooOld);
      ContinueToken fresh = token;
      fresh.rv = store_.rv();
      e.continue_token = encode_continue(fresh);
      return std::unexpected(std::move(e));
    }
    result.rv = token.rv;
  }
  if (!coll) return result;
  std::string prefix = type.namespaced && !ns.empty() ? ns + "/" : "";
  auto it = coll->items.lower_bound(prefix);
  if (continuing && token.start > prefix) it = coll->items.lower_bound(token.start);
  bool filtering = (options.selectors.labels && !options.selectors.labels->empty()) ||
                   (options.selectors.fields && !options.selectors.fields->empty());
  std::string last_key;
  std::size_t scanned = 0;
  for (; it != coll->items.end(); ++it) {
    if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
    if (options.limit && result.items.size() >= options.limit) break;
    ++scanned;
    last_key = it->first;
    if (filtering && !selected(type, it->second, options.selectors)) continue;
    result.items.push_back(it->second);
  }
  bool more = it != coll->items.end() &&
              (prefix.empty() || it->first.compare(0, prefix.size(), prefix) == 0);
  if (options.limit && more) {
    ContinueToken next;
    next.rv = result.rv;
    next.start = last_key + std::string(1, '\0');
    next.consumed = token.consumed + scanned;
    result.continue_token = encode_continue(next);
    if (!filtering) {
      std::size_t total = coll->items.size();
      if (!prefix.empty()) {
        auto n = coll->per_namespace.find(ns);
        total = n == coll->per_namespace.end() ? 0 : n->second;
      }
      result.remaining = total > next.consumed ? total - next.consumed : 1;
    }
  }
  return result;
}

Json Engine::present(const ResourceType& type, const Json& stored) const {
  if (type.converted) return kinds::from_storage(type, stored);
  if (type.custom() && stored.is_object() &&
      stored.value("apiVersion", std::string()) != type.api_version()) {
    Json copy = stored;
    copy["apiVersion"] = type.api_version();
    return copy;
  }
  return stored;
}

std::shared_ptr<const std::string> Engine::present_text(const ResourceType& type,
                                                        const StoredObject& stored) const {
  if (!type.converted && !type.custom()) return stored.text;  // a list's every item: no copies
  const std::string stored_version =
      stored.index ? stored.index->api_version : stored.obj()->value("apiVersion", std::string());
  if (!type.converted && stored_version == type.api_version()) return stored.text;
  return std::make_shared<const std::string>(to_text(present(type, *stored.obj())));
}

TypePtr Engine::type_of_storage(const std::string& storage) const {
  TypePtr best;
  for (const TypePtr& t : registry_.by_storage(storage)) {
    if (!best || !t->converted) best = t;
  }
  return best;
}

namespace {

// Kept decoded: the kinds read whole by every request's authorization (RBAC's), every write of
// their resources (CRDs), every write in a namespace (Namespaces) and every change of a pod of
// theirs (PodDisruptionBudgets). Everything else is read one object at a time.
bool keeps_decoded(const ResourceType& type) {
  using enum KindId;
  const KindId id = type.id;
  return id == Role || id == ClusterRole || id == RoleBinding || id == ClusterRoleBinding ||
         id == CustomResourceDefinition || id == PodDisruptionBudget || id == Namespace;
}

}  // namespace

StoredObject Engine::commit_put(const ResourceType& type, const std::string& key, Json obj) {
  // The old version as it was (the store entry is replaced below): what the bookkeeping reads
  // of it is in its index, so a write decodes no old object.
  std::optional<StoredObject> old;
  if (const StoredObject* found = store_.get(type.storage, key)) old = *found;
  // The decoded object stays in hand for this commit's bookkeeping and reactions.
  auto after = std::make_shared<Json>(std::move(obj));
  ObjectIndex index = index_of(type, *after);
  StoredObject stored = store_.put(type.storage, key, after, std::move(index), keeps_decoded(type));
  std::pair<std::string, std::string> where{type.storage, key};
  if (!stored.index->uid.empty()) by_uid_[stored.index->uid] = where;
  if (old) forget_dependent(old->index->owners, where);
  for (const std::string& owner : stored.index->owners)
    dependents_[owner].insert(where);
  after_change(type, old ? &*old : nullptr, after.get());
  return stored;
}

void Engine::commit_erase(const ResourceType& type, const std::string& key) {
  const StoredObject* found = store_.get(type.storage, key);
  if (!found) return;
  const StoredObject old = *found;  // its shared pointers outlive the store's entry
  store_.erase(type.storage, key);
  std::pair<std::string, std::string> where{type.storage, key};
  by_uid_.erase(old.index->uid);
  forget_dependent(old.index->owners, where);
  after_change(type, &old, nullptr);
}

void Engine::forget_dependent(const std::vector<std::string>& owners,
                              const std::pair<std::string, std::string>& where) {
  for (const std::string& owner : owners) {
    auto d = dependents_.find(owner);
    if (d == dependents_.end()) continue;
    d->second.erase(where);
    if (d->second.empty()) dependents_.erase(d);
  }
}

void Engine::after_change(const ResourceType& type, const StoredObject* before, const Json* after) {
  std::string ns = after ? object_namespace(*after) : before->index->ns;
  switch (type.id) {
    case KindId::Pod:
      refresh_pdbs(ns, before ? &before->index->labels : nullptr, after);
      break;
    case KindId::PodDisruptionBudget:
      if (after) refresh_pdb(Store::key(ns, object_name(*after)));
      break;
    case KindId::CustomResourceDefinition:
      if (after) {
        crd_changed(*after);
      } else {
        std::string name = before->index->name;
        registry_.remove_custom(name);
        for (const std::string& storage : {name})
          store_.drop(storage);
      }
      break;
    case KindId::ClusterRole:
      aggregate_cluster_roles();
      break;
    case KindId::Namespace:
      if (after && !before) {
        // The service-account controller: every namespace gets a "default" ServiceAccount.
        TypePtr sa = registry_.find("", "v1", "serviceaccounts");
        std::string name = object_name(*after);
        if (!store_.get(sa->storage, Store::key(name, "default"))) {
          Json obj = {{"apiVersion", "v1"},
                      {"kind", "ServiceAccount"},
                      {"metadata", {{"name", "default"}, {"namespace", name}}}};
          (void)create_locked(*sa, name, std::move(obj), WriteOptions{});
        }
      }
      break;
    default:
      break;
  }
  if (after && !before) collect_if_ownerless(type, *after);
  if (before && !after) {
    collect_garbage(before->index->uid);
    for (const std::string& owner : before->index->owners)
      check_foreground(owner);
    if (type.namespaced && !ns.empty()) maybe_finalize_namespace(ns);
    if (type.custom()) {
      TypePtr current = registry_.find(type.group, type.version, type.plural);
      if (current && current->terminating) maybe_finalize_crd(type.crd_name);
    }
  }
}

// The collector's other half: a dependent created when none of the owners it names exists any
// more (a controller acting on a cache that still showed its owner) goes as well, as the real
// garbage collector deletes dependents whose owners it cannot find.
void Engine::collect_if_ownerless(const ResourceType& type, const Json& obj) {
  const auto owners = owner_uids(obj);
  if (owners.empty()) return;
  for (const std::string& uid : owners)
    if (by_uid_.contains(uid)) return;
  (void)remove_locked(type, object_namespace(obj), object_name(obj), DeleteOptions{});
}

std::optional<runtime::TimePoint> Engine::next_deadline() const {
  if (pod_deadlines_.empty()) return std::nullopt;
  return pod_deadlines_.begin()->first;
}

std::optional<runtime::TimePoint> Engine::reap_expired() {
  std::unique_lock lock(store_.mutex());
  TypePtr pods = registry_.find("", "v1", "pods");
  runtime::TimePoint now = clock_.now();
  while (!pod_deadlines_.empty() && pod_deadlines_.begin()->first <= now) {
    auto [key, uid] = pod_deadlines_.begin()->second;
    pod_deadlines_.erase(pod_deadlines_.begin());
    const StoredObject* pod = store_.get(pods->storage, key);
    if (!pod) continue;
    Json obj = *pod->obj();
    if (object_uid(obj) != uid || !has_deletion_timestamp(obj)) continue;
    // The grace period is over: what a kubelet does once the containers have stopped.
    if (finalizers_of(obj).empty()) {
      commit_erase(*pods, key);
    } else {
      obj["metadata"]["deletionGracePeriodSeconds"] = 0;
      commit_put(*pods, key, std::move(obj));
    }
  }
  return next_deadline();
}

}  // namespace respool::sandbox
