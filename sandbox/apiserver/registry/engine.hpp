#pragma once
// The API server's semantics over the store, independent of HTTP: create, update, patch,
// delete with finalizers, grace periods and garbage collection, lists with selectors and
// paging, subresources (status, scale, eviction, binding), and the controllers a real control
// plane runs next to the API server that the sandbox folds in (CRD establishing, namespace
// cleanup, garbage collector, disruption controller, service-account controller).

#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "operator/kube/selector.hpp"
#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/registry/registry.hpp"
#include "sandbox/apiserver/registry/store.hpp"
#include "sandbox/apiserver/util.hpp"

namespace respool::sandbox {

template <class T>
using Result = std::expected<T, ApiError>;

struct WriteOptions {
  bool dry_run = false;
  std::string field_validation;  // "", "Ignore", "Warn", "Strict"
  // The manager metadata.managedFields records the write under: the request's fieldManager,
  // else its User-Agent's first word; "" for the server's own writes ("kube-apiserver").
  std::string field_manager;
  // Set by apply: the managedFields to write as they are.
  std::optional<Json> managed_fields;
};

struct DeleteOptions {
  std::optional<std::int64_t> grace_period_seconds;
  std::string propagation;  // "Background", "Foreground", "Orphan", or "" (the type's default)
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  bool dry_run = false;
};

struct WriteResult {
  StoredObject object;
  bool created = false;
  std::vector<std::string> warnings;  // Warning headers (unknown fields under Warn)
};

struct DeleteResult {
  StoredObject object;
  bool removed = false;  // false: marked (finalizers or a grace period remain)
};

struct Selectors {
  std::optional<kube::LabelSelector> labels;
  std::optional<kube::FieldSelector> fields;
};

struct ListOptions {
  Selectors selectors;
  std::size_t limit = 0;  // 0: everything
  std::string continue_token;
};

struct ListResult {
  std::vector<StoredObject> items;
  std::uint64_t rv = 0;
  std::string continue_token;
  std::optional<std::size_t> remaining;
};

// Parses ?labelSelector= and ?fieldSelector= for a type (400 for bad syntax or fields).
Result<Selectors> parse_selectors(const ResourceType& type, std::string_view label_selector,
                                  std::string_view field_selector);
// Whether the selectors select the object, from its index where that answers (no decoding).
bool selected(const ResourceType& type, const StoredObject& stored, const Selectors& selectors);

class Engine {
 public:
  Engine(runtime::Clock& clock, std::size_t watch_history);

  Store& store() { return store_; }
  Registry& registry() { return registry_; }
  runtime::Clock& clock() { return clock_; }

  // The namespaces every cluster has: default, kube-system, kube-public, kube-node-lease.
  void bootstrap();
  // kubernetes_service.cpp: the `kubernetes` Service of namespace default, with its Endpoints and
  // EndpointSlice naming the address the server listens on (ip:port).
  void publish_kubernetes_service(const std::string& ip, int port);
  // Puts back what of them is missing once published, as the apiserver's kubernetesservice
  // controller does (within ten seconds there; here at the end of the delete that removed it).
  void restore_kubernetes_service_locked();

  Result<StoredObject> get(const ResourceType& type, const std::string& ns,
                           const std::string& name);
  Result<ListResult> list(const ResourceType& type, const std::string& ns,
                          const ListOptions& options);
  Result<WriteResult> create(const ResourceType& type, const std::string& ns, Json body,
                             const WriteOptions& options);
  // subresource "" or "status".
  Result<WriteResult> update(const ResourceType& type, const std::string& ns,
                             const std::string& name, Json body, const WriteOptions& options,
                             const std::string& subresource = "");
  // patch_type: "application/merge-patch+json", "application/json-patch+json",
  // "application/strategic-merge-patch+json".
  Result<WriteResult> patch(const ResourceType& type, const std::string& ns,
                            const std::string& name, const std::string& patch_type,
                            const Json& patch, const WriteOptions& options,
                            const std::string& subresource = "");
  // Server-side apply (application/apply-patch+yaml) of `config`; creates the object when it
  // does not exist (subresource ""). 409 when it changes fields other managers own, unless forced.
  Result<WriteResult> apply(const ResourceType& type, const std::string& ns,
                            const std::string& name, Json config, const WriteOptions& options,
                            bool force, const std::string& subresource = "");
  Result<DeleteResult> remove(const ResourceType& type, const std::string& ns,
                              const std::string& name, const DeleteOptions& options);
  Result<std::vector<StoredObject>> remove_collection(const ResourceType& type,
                                                      const std::string& ns,
                                                      const ListOptions& list_options,
                                                      const DeleteOptions& options);

  Result<Json> get_scale(const ResourceType& type, const std::string& ns, const std::string& name);
  Result<Json> update_scale(const ResourceType& type, const std::string& ns,
                            const std::string& name, Json scale, const WriteOptions& options);
  Result<Json> patch_scale(const ResourceType& type, const std::string& ns, const std::string& name,
                           const std::string& patch_type, const Json& patch,
                           const WriteOptions& options);
  // POST pods/NAME/eviction: PodDisruptionBudgets decide; the pod is deleted when allowed.
  Result<void> evict(const std::string& ns, const std::string& name, const Json& eviction,
                     bool dry_run);
  // POST pods/NAME/binding: sets spec.nodeName once.
  Result<void> bind(const std::string& ns, const std::string& name, const Json& binding,
                    bool dry_run);

  // Removes pods whose grace period has passed; the next deadline, if any.
  std::optional<runtime::TimePoint> reap_expired();
  std::optional<runtime::TimePoint> next_deadline() const;

  // An object as a type shows it (events.k8s.io/v1 conversion, a CRD's other versions).
  Json present(const ResourceType& type, const Json& stored) const;
  std::shared_ptr<const std::string> present_text(const ResourceType& type,
                                                  const StoredObject& stored) const;

 private:
  // Everything below runs with the store mutex held.
  Result<StoredObject> get_locked(const ResourceType& type, const std::string& ns,
                                  const std::string& name);
  Result<WriteResult> create_locked(const ResourceType& type, const std::string& ns, Json body,
                                    const WriteOptions& options);
  Result<WriteResult> update_locked(const ResourceType& type, const std::string& ns,
                                    const std::string& name, Json body, const WriteOptions& options,
                                    const std::string& subresource, bool from_patch);
  Result<DeleteResult> remove_locked(const ResourceType& type, const std::string& ns,
                                     const std::string& name, const DeleteOptions& options);
  // engine_apply.cpp: metadata.managedFields of a write of `obj` over `old` (null: a create).
  void record_fields(const ResourceType& type, const Json* old, Json& obj,
                     const WriteOptions& options, const std::string& subresource);
  Result<WriteResult> finish_write(const ResourceType& type, const std::string& key, Json obj,
                                   const StoredObject* old, const WriteOptions& options,
                                   std::vector<std::string> warnings);
  // Custom resources: defaulting, pruning, unknown-field policy (validation: crd.hpp).
  std::optional<ApiError> apply_schema(const ResourceType& type, Json& obj,
                                       const WriteOptions& options,
                                       std::vector<std::string>& warnings);
  // Built-in kinds: the fields their Go type lacks dropped, under the same policy.
  std::optional<ApiError> drop_unknown_fields(const ResourceType& type, Json& body,
                                              const WriteOptions& options,
                                              std::vector<std::string>& warnings);
  // fieldValidation for the unknown fields found: Strict refuses, Warn warns, Ignore ignores.
  std::optional<ApiError> unknown_fields_policy(const ResourceType& type,
                                                const std::vector<std::string>& unknown,
                                                const WriteOptions& options,
                                                std::vector<std::string>& warnings);
  std::optional<ApiError> check_namespace(const ResourceType& type, const std::string& ns,
                                          const std::string& name);

  // Writes and removals that keep the indexes and the folded-in controllers up to date.
  StoredObject commit_put(const ResourceType& type, const std::string& key, Json obj);
  void commit_erase(const ResourceType& type, const std::string& key);
  // `before`: the version replaced or removed (its index answers without decoding).
  void after_change(const ResourceType& type, const StoredObject* before, const Json* after);
  void forget_dependent(const std::vector<std::string>& owners,
                        const std::pair<std::string, std::string>& where);

  void collect_garbage(const std::string& owner_uid);
  void collect_if_ownerless(const ResourceType& type, const Json& obj);
  void orphan_dependents(const std::string& owner_uid);
  void check_foreground(const std::string& owner_uid);
  void cleanup_namespace(const std::string& ns);
  void maybe_finalize_namespace(const std::string& ns);
  // A pod changed from `before_labels` (none: created) to `after` (none: gone).
  void refresh_pdbs(const std::string& ns, const Json* before_labels, const Json* after);
  void refresh_pdb(const std::string& key);
  void crd_changed(const Json& crd);
  void maybe_finalize_crd(const std::string& crd_name);
  void remove_finalizer(const ResourceType& type, const std::string& key,
                        const std::string& finalizer);
  TypePtr type_of_storage(const std::string& storage) const;
  // rbac/aggregation.cpp: the clusterrole-aggregation controller and the bootstrap policy.
  void aggregate_cluster_roles();
  void bootstrap_rbac();
  bool aggregating_ = false;

  runtime::Clock& clock_;
  Store store_;
  // Where the `kubernetes` Service points, once published (address, port).
  std::optional<std::pair<std::string, int>> kubernetes_address_;
  Registry registry_;
  // uid -> (storage, key); owner uid -> dependents (storage, key).
  std::map<std::string, std::pair<std::string, std::string>> by_uid_;
  std::map<std::string, std::set<std::pair<std::string, std::string>>> dependents_;
  // Pods terminating with a grace period: deadline -> (key, uid).
  std::multimap<runtime::TimePoint, std::pair<std::string, std::string>> pod_deadlines_;
};

}  // namespace respool::sandbox
