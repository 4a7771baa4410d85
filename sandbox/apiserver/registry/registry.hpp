#pragma once
// The resource types the sandbox serves: built-in kinds and those CRDs add. Discovery, routing
// and the handlers all read them from here.

#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "sandbox/apiserver/errors.hpp"

namespace respool::sandbox {

// Which built-in semantics a type gets in code (defaulting, validation, field selectors, tables).
// Kinds whose behaviour is all in their row of builtin_types.cpp are `Builtin`.
enum class KindId {
  Custom,
  Builtin,
  Namespace,
  Node,
  Pod,
  Event,    // core/v1 Event
  EventV1,  // events.k8s.io/v1 Event: the same storage as core/v1, converted
  ConfigMap,
  Secret,
  ServiceAccount,
  Service,
  DaemonSet,
  Deployment,
  Job,
  Lease,
  PodDisruptionBudget,
  CustomResourceDefinition,
  ReplicaSet,
  StatefulSet,
  ReplicationController,
  CronJob,
  HorizontalPodAutoscaler,    // autoscaling/v2, the stored form
  HorizontalPodAutoscalerV1,  // autoscaling/v1: the same storage, converted
  NetworkPolicy,
  PriorityClass,
  ResourceQuota,
  Role,
  ClusterRole,
  RoleBinding,
  ClusterRoleBinding,
  // Not stored: answered by a handler (reviews, bindings, component statuses).
  Binding,
  ComponentStatus,
  TokenReview,
  SelfSubjectReview,
  SubjectAccessReview,
  LocalSubjectAccessReview,
  SelfSubjectAccessReview,
  SelfSubjectRulesReview,
};

// How metadata.name is validated.
enum class NameRule {
  Subdomain,    // RFC 1123 subdomain (most kinds)
  Label,        // RFC 1123 label (namespaces)
  Rfc1035,      // RFC 1035 label (services)
  PathSegment,  // anything but "." / ".." / "/" / "%" (RBAC kinds: "system:discovery")
  None,         // checked elsewhere (CRDs)
};

struct PrinterDef;  // tables.hpp

// A subresource as discovery lists it. Empty group/version/kind: those of the parent.
struct SubresourceInfo {
  std::string name;
  std::string group, version, kind;
  std::vector<std::string> verbs;
};

struct PrinterColumn {
  std::string name, type, format, description, json_path;
  int priority = 0;
};

struct ScalePaths {
  std::string spec_replicas;    // ".spec.replicas"
  std::string status_replicas;  // ".status.replicas"
  std::string label_selector;   // ".status.selector" or ""
};

struct ResourceType {
  KindId id = KindId::Custom;
  std::string group, version, plural, singular, kind, list_kind;
  bool namespaced = true;
  std::vector<std::string> verbs, short_names, categories;
  std::string storage_version_hash;
  std::vector<SubresourceInfo> subresources;
  bool status_subresource = false;
  std::optional<ScalePaths> scale;
  std::string storage;                  // store collection; shared by types seen two ways (events)
  bool tracks_generation = false;       // metadata.generation set and bumped on spec changes
  bool returns_deleted_object = false;  // DELETE answers the object, not a Status
  bool stored = true;                   // false: create-only reviews and computed lists
  bool create_on_update = false;        // PUT of a missing object creates it
  bool converted = false;               // shown converted from the storage version's form
  NameRule name_rule = NameRule::Subdomain;
  // Built-ins only: defaults filled in on create (see kinds::apply_defaults), the parent of a
  // pod `template` whose pod spec gets the pod defaults ("spec", "spec.jobTemplate.spec", "" for
  // the object itself, unset for none), and the status a create starts from when status is a
  // subresource (null: as sent).
  Json defaults;
  std::optional<std::string> template_parent;
  Json create_status;
  const PrinterDef* printer = nullptr;  // server-side table columns; null: Name and Created At
  // Custom resources only.
  std::string crd_name;
  Json schema;  // the version's openAPIV3Schema, null when none
  std::vector<PrinterColumn> printer_columns;
  std::vector<std::string> selectable_fields;  // ".spec.x" jsonPaths a field selector may use
  bool terminating = false;                    // its CRD is being deleted

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  GroupResource gr() const { return {group, plural}; }
  bool custom() const { return id == KindId::Custom; }
  bool has_subresource(std::string_view name) const;
};

using TypePtr = std::shared_ptr<const ResourceType>;

struct GroupVersions {
  std::string name;                   // "" for the core group
  std::vector<std::string> versions;  // preferred first
};

// base64(sha256("group/version/kind")[:8]), as discovery's storageVersionHash.
std::string storage_version_hash(const std::string& group, const std::string& version,
                                 const std::string& kind);

class Registry {
 public:
  Registry();  // the built-in types

  TypePtr find(std::string_view group, std::string_view version, std::string_view plural) const;
  // Every type whose storage collection is `storage` (events: two).
  std::vector<TypePtr> by_storage(std::string_view storage) const;
  bool serves_group_version(std::string_view group, std::string_view version) const;
  // Groups in discovery order: the core group first, built-in groups, then CRD groups by name.
  std::vector<GroupVersions> groups() const;
  // The types of one group-version in discovery order.
  std::vector<TypePtr> resources(std::string_view group, std::string_view version) const;
  // Every served type (each version of a CRD counts once).
  std::vector<TypePtr> all() const;

  // Serves the versions of a CRD (replacing what it served before).
  void set_custom(const std::string& crd_name, std::vector<ResourceType> versions);
  void remove_custom(const std::string& crd_name);
  void mark_terminating(const std::string& crd_name);
  // Bumped by every change; discovery documents carry it in their ETag.
  std::uint64_t generation() const;

 private:
  mutable std::shared_mutex mu_;
  std::vector<TypePtr> builtin_;
  std::map<std::string, std::vector<TypePtr>> custom_;  // by CRD name
  std::vector<GroupVersions> builtin_groups_;
  std::uint64_t generation_ = 1;
};

}  // namespace respool::sandbox
