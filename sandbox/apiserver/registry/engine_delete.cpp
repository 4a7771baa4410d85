// Deletion: preconditions, finalizers, graceful pod deletion, propagation policies, and the
// folded-in garbage collector, namespace controller and CRD finalizer.

#include "apimachinery/time.hpp"
#include "sandbox/apiserver/registry/crd.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox {
namespace {

constexpr const char* kForeground = "foregroundDeletion";

// The grace period of a delete: pods on a node that have not finished get one (the request's,
// else spec.terminationGracePeriodSeconds); everything else goes at once.
std::int64_t grace_for(const ResourceType& type, const Json& obj, const DeleteOptions& options) {
  if (type.id != KindId::Pod) return 0;
  const Json spec = obj.value("spec", Json::object());
  const Json status = obj.value("status", Json::object());
  if (spec.value("nodeName", std::string()).empty()) return 0;
  std::string phase = status.is_object() ? status.value("phase", std::string()) : "";
  if (phase == "Succeeded" || phase == "Failed") return 0;
  std::int64_t grace = options.grace_period_seconds.value_or(
      spec.value("terminationGracePeriodSeconds", std::int64_t{30}));
  return grace < 0 ? 0 : grace;
}

void add_finalizer(Json& obj, const std::string& f) {
  Json& list = obj["metadata"]["finalizers"];
  if (!list.is_array()) list = Json::array();
  if (std::find(list.begin(), list.end(), Json(f)) == list.end()) list.push_back(f);
}

// The preconditions (uid, resourceVersion) and the propagation policy of a delete.
std::optional<ApiError> check_delete_options(const ResourceType& type, const std::string& name,
                                             const StoredObject& current,
                                             const DeleteOptions& options) {
  const auto decoded = current.obj();
  const Json& obj = *decoded;
  if (options.precondition_uid && *options.precondition_uid != object_uid(obj)) {
    return conflict(type.gr(), name,
                    "Precondition failed: UID in precondition: " + *options.precondition_uid +
                        ", UID in object meta: " + object_uid(obj));
  }
  if (options.precondition_resource_version &&
      *options.precondition_resource_version != std::to_string(current.rv)) {
    return conflict(type.gr(), name,
                    "Precondition failed: ResourceVersion in precondition: " +
                        *options.precondition_resource_version +
                        ", ResourceVersion in object meta: " + std::to_string(current.rv));
  }
  const std::string& propagation = options.propagation;
  if (!propagation.empty() && propagation != "Background" && propagation != "Foreground" &&
      propagation != "Orphan") {
    return invalid("meta.k8s.io", "DeleteOptions", "",
                   {field_not_supported("propagationPolicy", propagation,
                                        {"Foreground", "Background", "Orphan", "nil"})});
  }
  return std::nullopt;
}

}  // namespace

Result<DeleteResult> Engine::remove(const ResourceType& type, const std::string& ns,
                                    const std::string& name, const DeleteOptions& options) {
  std::unique_lock lock(store_.mutex());
  auto result = remove_locked(type, ns, name, options);
  restore_kubernetes_service_locked();
  return result;
}

Result<DeleteResult> Engine::remove_locked(const ResourceType& type, const std::string& ns,
                                           const std::string& name, const DeleteOptions& options) {
  std::string key = Store::key(type.namespaced ? ns : "", name);
  const StoredObject* found = store_.get(type.storage, key);
  if (!found) return std::unexpected(not_found(type.gr(), name));
  // A copy: the writes below replace or erase the stored entry `found` points into, and the
  // copy's shared pointers keep this version alive for the answer.
  const StoredObject current_copy = *found;
  const StoredObject* current = &current_copy;
  const auto decoded = current->obj();
  const Json& obj = *decoded;
  if (auto e = check_delete_options(type, name, *current, options)) return std::unexpected(*e);
  const std::string propagation = options.propagation.empty() ? "Background" : options.propagation;
  std::int64_t grace = grace_for(type, obj, options);
  if (options.dry_run)
    return DeleteResult{*current,
                        !has_deletion_timestamp(obj) && grace == 0 && finalizers_of(obj).empty()};

  if (propagation == "Orphan") orphan_dependents(object_uid(obj));
  Json next = obj;
  bool special = type.id == KindId::Namespace || type.id == KindId::CustomResourceDefinition;
  if (special && !has_deletion_timestamp(obj)) {
    next["metadata"]["deletionTimestamp"] = apimachinery::format_time(clock_.now());
    next["metadata"]["deletionGracePeriodSeconds"] = 0;
    if (type.id == KindId::Namespace) {
      next["status"]["phase"] = "Terminating";
    } else {
      add_finalizer(next, kCrdCleanupFinalizer);
    }
    if (type.tracks_generation) {
      next["metadata"]["generation"] = obj["metadata"].value("generation", 0) + 1;
    }
    StoredObject marked = commit_put(type, key, std::move(next));
    if (type.id == KindId::Namespace) {
      cleanup_namespace(name);
    } else {
      if (auto coll = store_.find(name)) {
        std::vector<std::string> keys;
        for (const auto& [k, v] : coll->items)
          keys.push_back(k);
        TypePtr cr = type_of_storage(name);
        for (const std::string& k : keys) {
          auto slash = k.find('/');
          std::string crns = slash == std::string::npos ? "" : k.substr(0, slash);
          std::string crname = slash == std::string::npos ? k : k.substr(slash + 1);
          if (cr) (void)remove_locked(*cr, crns, crname, DeleteOptions{});
        }
      }
      maybe_finalize_crd(name);
    }
    const StoredObject* after = store_.get(type.storage, key);
    return DeleteResult{after ? *after : marked, after == nullptr};
  }
  if (has_deletion_timestamp(obj)) {
    // Already being deleted: a shorter grace period for a pod brings its end forward.
    std::int64_t had = obj["metadata"].value("deletionGracePeriodSeconds", std::int64_t{0});
    if (type.id == KindId::Pod && grace < had) {
      if (grace == 0 && finalizers_of(obj).empty()) {
        commit_erase(type, key);
        return DeleteResult{*current, true};
      }
      runtime::TimePoint deadline = clock_.now() + std::chrono::seconds(grace);
      next["metadata"]["deletionTimestamp"] = apimachinery::format_time(deadline);
      next["metadata"]["deletionGracePeriodSeconds"] = grace;
      if (grace > 0) pod_deadlines_.emplace(deadline, std::make_pair(key, object_uid(obj)));
      return DeleteResult{commit_put(type, key, std::move(next)), false};
    }
    return DeleteResult{*current, false};
  }
  if (propagation == "Foreground" && dependents_.count(object_uid(obj))) {
    add_finalizer(next, kForeground);
  }
  if (finalizers_of(next).empty() && grace == 0) {
    StoredObject last = *current;
    commit_erase(type, key);
    return DeleteResult{last, true};
  }
  runtime::TimePoint deadline = clock_.now() + std::chrono::seconds(grace);
  next["metadata"]["deletionTimestamp"] = apimachinery::format_time(deadline);
  next["metadata"]["deletionGracePeriodSeconds"] = grace;
  if (type.tracks_generation) {
    next["metadata"]["generation"] = obj["metadata"].value("generation", 0) + 1;
  }
  StoredObject marked = commit_put(type, key, std::move(next));
  if (grace > 0) pod_deadlines_.emplace(deadline, std::make_pair(key, object_uid(obj)));
  if (propagation == "Foreground") {
    collect_garbage(object_uid(obj));
    check_foreground(object_uid(obj));
  }
  const StoredObject* after = store_.get(type.storage, key);
  return DeleteResult{after ? *after : marked, after == nullptr};
}

Result<std::vector<StoredObject>> Engine::remove_collection(const ResourceType& type,
                                                            const std::string& ns,
                                                            const ListOptions& list_options,
                                                            const DeleteOptions& options) {
  std::unique_lock lock(store_.mutex());
  std::vector<StoredObject> out;
  auto coll = store_.find(type.storage);
  if (!coll) return out;
  std::vector<std::pair<std::string, std::string>> targets;
  for (const auto& [key, stored] : coll->items) {
    const ObjectIndex& index = *stored.index;
    if (type.namespaced && !ns.empty() && index.ns != ns) continue;
    if (!selected(type, stored, list_options.selectors)) continue;
    targets.emplace_back(index.ns, index.name);
  }
  for (const auto& [ons, name] : targets) {
    auto r = remove_locked(type, ons, name, options);
    if (r) out.push_back(r->object);
  }
  restore_kubernetes_service_locked();
  return out;
}

void Engine::orphan_dependents(const std::string& owner_uid) {
  auto d = dependents_.find(owner_uid);
  if (d == dependents_.end()) return;
  auto targets = d->second;
  for (const auto& [storage, key] : targets) {
    const StoredObject* dep = store_.get(storage, key);
    TypePtr type = type_of_storage(storage);
    if (!dep || !type) continue;
    Json obj = *dep->obj();
    Json& refs = obj["metadata"]["ownerReferences"];  // an array: dependents_ read it as one
    std::erase_if(refs.get_ref<Json::array_t&>(), [&](const Json& ref) {
      return ref.is_object() && ref.value("uid", std::string()) == owner_uid;
    });
    if (refs.empty()) obj["metadata"].erase("ownerReferences");
    commit_put(*type, key, std::move(obj));
  }
}

void Engine::collect_garbage(const std::string& owner_uid) {
  if (owner_uid.empty()) return;
  auto d = dependents_.find(owner_uid);
  if (d == dependents_.end()) return;
  auto targets = d->second;
  for (const auto& [storage, key] : targets) {
    const StoredObject* dep = store_.get(storage, key);
    TypePtr type = type_of_storage(storage);
    if (!dep || !type) continue;
    // A dependent goes once none of its owners exists; otherwise the dangling reference goes.
    bool other_owner = false;
    const auto dependent = dep->obj();
    for (const Json& ref : (*dependent)["metadata"]["ownerReferences"]) {
      if (!ref.is_object()) continue;
      std::string uid = ref.value("uid", std::string());
      if (uid == owner_uid) continue;
      auto o = by_uid_.find(uid);
      if (o != by_uid_.end()) {
        const StoredObject* owner = store_.get(o->second.first, o->second.second);
        if (owner && !has_deletion_timestamp(*owner->obj())) other_owner = true;
      }
    }
    const StoredObject* owner_now = nullptr;
    if (auto o = by_uid_.find(owner_uid); o != by_uid_.end()) {
      owner_now = store_.get(o->second.first, o->second.second);
    }
    bool owner_gone = !owner_now || has_deletion_timestamp(*owner_now->obj());
    if (!owner_gone) continue;
    if (other_owner) continue;
    if (has_deletion_timestamp(*dependent)) continue;
    std::string ns = object_namespace(*dependent);
    std::string name = object_name(*dependent);
    (void)remove_locked(*type, ns, name, DeleteOptions{});
  }
}

void Engine::check_foreground(const std::string& owner_uid) {
  auto o = by_uid_.find(owner_uid);
  if (o == by_uid_.end()) return;
  auto [storage, key] = o->second;
  const StoredObject* owner = store_.get(storage, key);
  if (!owner) return;
  const auto owner_object = owner->obj();
  if (!has_deletion_timestamp(*owner_object)) return;
  auto fins = finalizers_of(*owner_object);
  if (std::find(fins.begin(), fins.end(), kForeground) == fins.end()) return;
  if (dependents_.count(owner_uid)) return;
  TypePtr type = type_of_storage(storage);
  if (type) remove_finalizer(*type, key, kForeground);
}

void Engine::remove_finalizer(const ResourceType& type, const std::string& key,
                              const std::string& finalizer) {
  const StoredObject* current = store_.get(type.storage, key);
  if (!current) return;
  Json obj = *current->obj();
  Json list = Json::array();
  if (obj["metadata"].contains("finalizers") && obj["metadata"]["finalizers"].is_array()) {
    for (const Json& f : obj["metadata"]["finalizers"]) {
      if (f != finalizer) list.push_back(f);
    }
  }
  if (list.empty()) {
    obj["metadata"].erase("finalizers");
  } else {
    obj["metadata"]["finalizers"] = list;
  }
  if (has_deletion_timestamp(obj) && list.empty() &&
      obj["metadata"].value("deletionGracePeriodSeconds", 0) == 0) {
    commit_erase(type, key);
  } else if (obj != *current->obj()) {
    commit_put(type, key, std::move(obj));
  }
}

void Engine::cleanup_namespace(const std::string& ns) {
  std::vector<std::pair<TypePtr, std::string>> targets;
  for (const TypePtr& type : registry_.all()) {
    if (!type->namespaced || type->converted || !type->stored) continue;
    auto coll = store_.find(type->storage);
    if (!coll) continue;
    std::string prefix = ns + "/";
    for (auto it = coll->items.lower_bound(prefix);
         it != coll->items.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      targets.emplace_back(type, it->second.index->name);
    }
  }
  for (const auto& [type, name] : targets)
    (void)remove_locked(*type, ns, name, DeleteOptions{});
  maybe_finalize_namespace(ns);
}

void Engine::maybe_finalize_namespace(const std::string& ns) {
  TypePtr nstype = registry_.find("", "v1", "namespaces");
  const StoredObject* n = store_.get(nstype->storage, ns);
  if (!n || !has_deletion_timestamp(*n->obj())) return;
  for (const TypePtr& type : registry_.all()) {
    if (!type->namespaced) continue;
    auto coll = store_.find(type->storage);
    if (!coll) continue;
    if (coll->per_namespace.count(ns)) return;
  }
  // The namespace controller's last step: spec.finalizers emptied, then the namespace goes.
  if (finalizers_of(*n->obj()).empty()) commit_erase(*nstype, ns);
}

}  // namespace respool::sandbox
