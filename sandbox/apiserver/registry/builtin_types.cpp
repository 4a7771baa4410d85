// The built-in kinds: one row per served resource, as kube-apiserver v1.32 lists it in discovery
// (k8s-reference/discovery-*.txt): group, version, kind, plural, scope, verbs, short names,
// categories, subresources, and what the sandbox does with it (defaults, status on create,
// printer). Behaviour that data cannot say lives in code keyed by the row's KindId:
//   defaults/status/conversion  strategies/ (defaults, builtin, conversions; table.cpp)
//   validation                  validation/rules.cpp, validation/decode.cpp
//   tables                      printers/<group>.cpp
//   controllers folded in       registry/engine.cpp (after_change), controllers/, rbac/
//   not stored (reviews, ...)   handlers/virtual_kinds.cpp

#include "sandbox/apiserver/registry/builtin_types.hpp"

#include "sandbox/apiserver/printers/printers.hpp"
#include "sandbox/apiserver/util.hpp"

namespace respool::sandbox {
namespace {

enum RowFlags : unsigned {
  kNoFlags = 0,
  kTracksGeneration = 1,  // metadata.generation set and bumped on spec changes
  kReturnsDeleted = 2,    // DELETE answers the object
  kNotStored = 4,         // not stored: a handler answers (reviews, bindings, component statuses)
  kCreateOnUpdate = 8,    // PUT of a missing object creates it
};

constexpr const char* kAllVerbs = "create,delete,deletecollection,get,list,patch,update,watch";

struct KindRow {
  KindId id;
  const char* group;
  const char* version;
  const char* kind;
  const char* plural;
  bool namespaced;
  const char* short_names;   // comma-separated
  const char* categories;    // comma-separated
  const char* subresources;  // comma-separated names, see subresource_of()
  unsigned flags;
  const PrinterDef* printer;
  const char* defaults = "";       // JSON, see kinds::apply_defaults
  const char* create_status = "";  // JSON: the status a create starts from ("" keeps it)
  const char* template_parent = nullptr;
  const char* verbs = kAllVerbs;
  NameRule name_rule = NameRule::Subdomain;
};

constexpr bool kNamespaced = true;      // namespaced
constexpr bool kClusterScoped = false;  // cluster-scoped

// clang-format off
const KindRow kKindRows[] = {
  // core/v1
  {KindId::Binding, "", "v1", "Binding", "bindings", kNamespaced, "", "", "", kNotStored, nullptr, "", "", nullptr, "create"},
  {KindId::ComponentStatus, "", "v1", "ComponentStatus", "componentstatuses", kClusterScoped, "cs", "", "", kNotStored, &printers::component_status, "", "", nullptr, "get,list"},
  {KindId::ConfigMap, "", "v1", "ConfigMap", "configmaps", kNamespaced, "cm", "", "", kNoFlags, &printers::config_map},
  {KindId::Builtin, "", "v1", "Endpoints", "endpoints", kNamespaced, "ep", "", "", kCreateOnUpdate, &printers::endpoints},
  {KindId::Event, "", "v1", "Event", "events", kNamespaced, "ev", "", "", kCreateOnUpdate, &printers::event, "", "", nullptr, kAllVerbs, NameRule::PathSegment},
  {KindId::Builtin, "", "v1", "LimitRange", "limitranges", kNamespaced, "limits", "", "", kCreateOnUpdate, nullptr},
  {KindId::Namespace, "", "v1", "Namespace", "namespaces", kClusterScoped, "ns", "", "finalize,status", kReturnsDeleted, &printers::namespace_, "", "", nullptr, "create,delete,get,list,patch,update,watch", NameRule::Label},
  {KindId::Node, "", "v1", "Node", "nodes", kClusterScoped, "no", "", "proxy,status", kNoFlags, &printers::node},
  {KindId::Builtin, "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", kNamespaced, "pvc", "", "status", kNoFlags, &printers::persistent_volume_claim,
   R"({"spec":{"volumeMode":"Filesystem"}})", R"({"phase":"Pending"})"},
  {KindId::Builtin, "", "v1", "PersistentVolume", "persistentvolumes", kClusterScoped, "pv", "", "status", kNoFlags, &printers::persistent_volume,
   R"({"spec":{"persistentVolumeReclaimPolicy":"Retain","volumeMode":"Filesystem"}})", R"({"phase":"Pending"})"},
  {KindId::Pod, "", "v1", "Pod", "pods", kNamespaced, "po", "all", "attach,binding,ephemeralcontainers,eviction,exec,log,portforward,proxy,status", kReturnsDeleted, &printers::pod},
  {KindId::Builtin, "", "v1", "PodTemplate", "podtemplates", kNamespaced, "", "", "", kTracksGeneration, &printers::pod_template, "", "", ""},
  {KindId::ReplicationController, "", "v1", "ReplicationController", "replicationcontrollers", kNamespaced, "rc", "all", "scale,status", kTracksGeneration, &printers::replication_controller,
   R"({"spec":{"replicas":1}})", R"({"replicas":0})", "spec"},
  {KindId::ResourceQuota, "", "v1", "ResourceQuota", "resourcequotas", kNamespaced, "quota", "", "status", kNoFlags, &printers::resource_quota, "", "{}"},
  {KindId::Secret, "", "v1", "Secret", "secrets", kNamespaced, "", "", "", kNoFlags, &printers::secret},
  {KindId::ServiceAccount, "", "v1", "ServiceAccount", "serviceaccounts", kNamespaced, "sa", "", "token", kNoFlags, &printers::service_account},
  {KindId::Service, "", "v1", "Service", "services", kNamespaced, "svc", "all", "proxy,status", kReturnsDeleted, &printers::service, "", "", nullptr, kAllVerbs, NameRule::Rfc1035},
  // apiregistration.k8s.io/v1
  {KindId::Builtin, "apiregistration.k8s.io", "v1", "APIService", "apiservices", kClusterScoped, "", "api-extensions", "status", kNoFlags, &printers::api_service, "", "{}"},
  // apps/v1
  {KindId::Builtin, "apps", "v1", "ControllerRevision", "controllerrevisions", kNamespaced, "", "", "", kNoFlags, &printers::controller_revision},
  {KindId::DaemonSet, "apps", "v1", "DaemonSet", "daemonsets", kNamespaced, "ds", "all", "status", kTracksGeneration, &printers::daemon_set},
  {KindId::Deployment, "apps", "v1", "Deployment", "deployments", kNamespaced, "deploy", "all", "scale,status", kTracksGeneration, &printers::deployment},
  {KindId::ReplicaSet, "apps", "v1", "ReplicaSet", "replicasets", kNamespaced, "rs", "all", "scale,status", kTracksGeneration, &printers::replica_set,
   R"({"spec":{"replicas":1}})", R"({"replicas":0})", "spec"},
  {KindId::StatefulSet, "apps", "v1", "StatefulSet", "statefulsets", kNamespaced, "sts", "all", "scale,status", kTracksGeneration, &printers::stateful_set,
   R"({"spec":{"replicas":1,"podManagementPolicy":"OrderedReady","updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},"revisionHistoryLimit":10,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"}}})",
   R"({"replicas":0,"availableReplicas":0})", "spec", kAllVerbs, NameRule::Label},
  // events.k8s.io/v1
  {KindId::EventV1, "events.k8s.io", "v1", "Event", "events", kNamespaced, "ev", "", "", kCreateOnUpdate, &printers::event},
  // authentication.k8s.io/v1
  {KindId::SelfSubjectReview, "authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", kClusterScoped, "", "", "", kNotStored, nullptr, "", "", nullptr, "create"},
  {KindId::TokenReview, "authentication.k8s.io", "v1", "TokenReview", "tokenreviews", kClusterScoped, "", "", "", kNotStored, nullptr, "", "", nullptr, "create"},
  // authorization.k8s.io/v1
  {KindId::LocalSubjectAccessReview, "authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", kNamespaced, "", "", "", kNotStored, nullptr, "", "", nullptr, "create"},
  {KindId::SelfSubjectAccessReview, "authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", kClusterScoped, "", "", "", kNotStored, nullptr, "", "", nullptr, "create"},
  {KindId::SelfSubjectRulesReview, "authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", kClusterScoped, "", "", "", kNotStored, nullptr, "", "", nullptr, "create"},
  {KindId::SubjectAccessReview, "authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", kClusterScoped, "", "", "", kNotStored, nullptr, "", "", nullptr, "create"},
  // autoscaling/v2 (stored) and v1
  {KindId::HorizontalPodAutoscaler, "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", kNamespaced, "hpa", "all", "status", kTracksGeneration, &printers::horizontal_pod_autoscaler,
   R"({"spec":{"minReplicas":1}})", R"({"currentReplicas":0,"desiredReplicas":0})"},
  {KindId::HorizontalPodAutoscalerV1, "autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", kNamespaced, "hpa", "all", "status", kTracksGeneration, &printers::horizontal_pod_autoscaler,
   R"({"spec":{"minReplicas":1}})", R"({"currentReplicas":0,"desiredReplicas":0})"},
  // batch/v1
  {KindId::CronJob, "batch", "v1", "CronJob", "cronjobs", kNamespaced, "cj", "all", "status", kTracksGeneration, &printers::cron_job,
   R"({"spec":{"concurrencyPolicy":"Allow","suspend":false,"successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1}})", "{}", "spec.jobTemplate.spec"},
  {KindId::Job, "batch", "v1", "Job", "jobs", kNamespaced, "", "all", "status", kTracksGeneration, &printers::job},
  // certificates.k8s.io/v1
  {KindId::Builtin, "certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", kClusterScoped, "csr", "", "approval,status", kNoFlags, &printers::certificate_signing_request, "", "{}"},
  // networking.k8s.io/v1
  {KindId::Builtin, "networking.k8s.io", "v1", "IngressClass", "ingressclasses", kClusterScoped, "", "", "", kNoFlags, &printers::ingress_class},
  {KindId::Builtin, "networking.k8s.io", "v1", "Ingress", "ingresses", kNamespaced, "ing", "", "status", kTracksGeneration, &printers::ingress, "", R"({"loadBalancer":{}})"},
  {KindId::NetworkPolicy, "networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", kNamespaced, "netpol", "", "", kTracksGeneration, &printers::network_policy},
  // policy/v1
  {KindId::PodDisruptionBudget, "policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", kNamespaced, "pdb", "", "status", kTracksGeneration, &printers::pod_disruption_budget},
  // rbac.authorization.k8s.io/v1
  {KindId::ClusterRoleBinding, "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", kClusterScoped, "", "", "", kCreateOnUpdate, &printers::cluster_role_binding, "", "", nullptr, kAllVerbs, NameRule::PathSegment},
  {KindId::ClusterRole, "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", kClusterScoped, "", "", "", kCreateOnUpdate, nullptr, R"({"rules":null})", "", nullptr, kAllVerbs, NameRule::PathSegment},
  {KindId::RoleBinding, "rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", kNamespaced, "", "", "", kCreateOnUpdate, &printers::role_binding, "", "", nullptr, kAllVerbs, NameRule::PathSegment},
  {KindId::Role, "rbac.authorization.k8s.io", "v1", "Role", "roles", kNamespaced, "", "", "", kCreateOnUpdate, nullptr, R"({"rules":null})", "", nullptr, kAllVerbs, NameRule::PathSegment},
  // storage.k8s.io/v1
  {KindId::Builtin, "storage.k8s.io", "v1", "CSIDriver", "csidrivers", kClusterScoped, "", "", "", kNoFlags, &printers::csi_driver,
   R"({"spec":{"attachRequired":true,"podInfoOnMount":false,"storageCapacity":false,"fsGroupPolicy":"ReadWriteOnceWithFSType","requiresRepublish":false,"volumeLifecycleModes":["Persistent"],"seLinuxMount":false}})"},
  {KindId::Builtin, "storage.k8s.io", "v1", "CSINode", "csinodes", kClusterScoped, "", "", "", kNoFlags, &printers::csi_node},
  {KindId::Builtin, "storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", kNamespaced, "", "", "", kNoFlags, &printers::csi_storage_capacity},
  {KindId::Builtin, "storage.k8s.io", "v1", "StorageClass", "storageclasses", kClusterScoped, "sc", "", "", kNoFlags, &printers::storage_class,
   R"({"reclaimPolicy":"Delete","volumeBindingMode":"Immediate"})"},
  {KindId::Builtin, "storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", kClusterScoped, "", "", "status", kNoFlags, &printers::volume_attachment, "", R"({"attached":false})"},
  // admissionregistration.k8s.io/v1: stored, never called
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", kClusterScoped, "", "api-extensions", "", kTracksGeneration, &printers::webhook_configuration,
   R"({"webhooks":{"[]":{"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"reinvocationPolicy":"Never","timeoutSeconds":10,"rules":{"[]":{"scope":"*"}},"clientConfig":{"?service":{"port":443}}}}})"},
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", kClusterScoped, "", "api-extensions", "status", kTracksGeneration, &printers::validating_admission_policy,
   R"({"spec":{"failurePolicy":"Fail","?matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}}}})", "{}"},
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", kClusterScoped, "", "api-extensions", "", kTracksGeneration, &printers::validating_admission_policy_binding,
   R"({"spec":{"?paramRef":{"parameterNotFoundAction":"Deny"},"?matchResources":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}}}})"},
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", kClusterScoped, "", "api-extensions", "", kTracksGeneration, &printers::webhook_configuration,
   R"({"webhooks":{"[]":{"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"timeoutSeconds":10,"rules":{"[]":{"scope":"*"}},"clientConfig":{"?service":{"port":443}}}}})"},
  // apiextensions.k8s.io/v1
  {KindId::CustomResourceDefinition, "apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", kClusterScoped, "crd,crds", "api-extensions", "status", kTracksGeneration, nullptr, "", "", nullptr, kAllVerbs, NameRule::None},
  // scheduling.k8s.io/v1
  {KindId::PriorityClass, "scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", kClusterScoped, "pc", "", "", kNoFlags, &printers::priority_class,
   R"({"preemptionPolicy":"PreemptLowerPriority"})"},
  // coordination.k8s.io/v1
  {KindId::Lease, "coordination.k8s.io", "v1", "Lease", "leases", kNamespaced, "", "", "", kCreateOnUpdate, &printers::lease},
  // node.k8s.io/v1
  {KindId::Builtin, "node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", kClusterScoped, "", "", "", kNoFlags, &printers::runtime_class},
  // discovery.k8s.io/v1
  {KindId::Builtin, "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", kNamespaced, "", "", "", kTracksGeneration, &printers::endpoint_slice},
  // flowcontrol.apiserver.k8s.io/v1
  {KindId::Builtin, "flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", kClusterScoped, "", "", "status", kNoFlags, &printers::flow_schema, "", "{}"},
  {KindId::Builtin, "flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", kClusterScoped, "", "", "status", kNoFlags, &printers::priority_level_configuration, "", "{}"},
};

// The groups in the order of kube-apiserver's /apis, each with its versions, preferred first.
const std::vector<GroupVersions> kBuiltinGroups = {
  {"", {"v1"}},
  {"apiregistration.k8s.io", {"v1"}},
  {"apps", {"v1"}},
  {"events.k8s.io", {"v1"}},
  {"authentication.k8s.io", {"v1"}},
  {"authorization.k8s.io", {"v1"}},
  {"autoscaling", {"v2", "v1"}},
  {"batch", {"v1"}},
  {"certificates.k8s.io", {"v1"}},
  {"networking.k8s.io", {"v1"}},
  {"policy", {"v1"}},
  {"rbac.authorization.k8s.io", {"v1"}},
  {"storage.k8s.io", {"v1"}},
  {"admissionregistration.k8s.io", {"v1"}},
  {"apiextensions.k8s.io", {"v1"}},
  {"scheduling.k8s.io", {"v1"}},
  {"coordination.k8s.io", {"v1"}},
  {"node.k8s.io", {"v1"}},
  {"discovery.k8s.io", {"v1"}},
  {"flowcontrol.apiserver.k8s.io", {"v1"}},
};
// clang-format on

const std::vector<std::string> kSubresourceVerbs = {"get", "patch", "update"};

std::vector<std::string> split_list(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

// A subresource_of as discovery shows it: the kind of its body and its verbs.
SubresourceInfo subresource_of(const std::string& name, const std::string& kind) {
  if (name == "status" || name == "approval") return {name, "", "", "", kSubresourceVerbs};
  if (name == "ephemeralcontainers") return {name, "", "", "", kSubresourceVerbs};
  if (name == "scale") return {name, "autoscaling", "v1", "Scale", kSubresourceVerbs};
  if (name == "finalize") return {name, "", "", "", {"update"}};
  if (name == "binding") return {name, "", "", "Binding", {"create"}};
  if (name == "eviction") return {name, "policy", "v1", "Eviction", {"create"}};
  if (name == "token") return {name, "authentication.k8s.io", "v1", "TokenRequest", {"create"}};
  if (name == "log") return {name, "", "", kind, {"get"}};
  if (name == "proxy") {
    return {name, "", "", kind + "ProxyOptions", {"create", "delete", "get", "patch", "update"}};
  }
  if (name == "attach") return {name, "", "", kind + "AttachOptions", {"create", "get"}};
  if (name == "exec") return {name, "", "", kind + "ExecOptions", {"create", "get"}};
  return {name, "", "", kind + "PortForwardOptions", {"create", "get"}};  // portforward
}

ResourceType type_of_row(const KindRow& row) {
  ResourceType t;
  t.id = row.id;
  t.group = row.group;
  t.version = row.version;
  t.kind = row.kind;
  t.plural = row.plural;
  t.singular = lowercase(t.kind);
  t.list_kind = t.kind + "List";
  t.namespaced = row.namespaced;
  t.verbs = split_list(row.verbs);
  t.short_names = split_list(row.short_names);
  t.categories = split_list(row.categories);
  for (const std::string& s : split_list(row.subresources)) {
    t.subresources.push_back(subresource_of(s, t.kind));
    if (s == "status") t.status_subresource = true;
  }
  if (t.has_subresource("scale")) t.scale = ScalePaths{".spec.replicas", ".status.replicas", ""};
  t.tracks_generation = row.flags & kTracksGeneration;
  t.returns_deleted_object = row.flags & kReturnsDeleted;
  t.stored = !(row.flags & kNotStored);
  t.create_on_update = row.flags & kCreateOnUpdate;
  t.name_rule = row.name_rule;
  t.printer = row.printer;
  if (*row.defaults) t.defaults = Json::parse(row.defaults);
  if (*row.create_status) t.create_status = Json::parse(row.create_status);
  if (row.template_parent) t.template_parent = row.template_parent;
  t.storage = t.group.empty() ? t.plural : t.plural + "." + t.group;
  // Only stored kinds have a storage version; CustomResourceDefinitions are still stored as
  // v1beta1 (the hash the real server reports).
  if (t.stored) {
    t.storage_version_hash = storage_version_hash(
        t.group, t.id == KindId::CustomResourceDefinition ? "v1beta1" : t.version, t.kind);
  }
  return t;
}

}  // namespace

std::vector<ResourceType> builtin_types() {
  std::vector<ResourceType> out;
  for (const KindRow& row : kKindRows)
    out.push_back(type_of_row(row));
  for (ResourceType& t : out) {
    // The same objects seen two ways: stored as core/v1 Events and autoscaling/v2.
    if (t.id == KindId::EventV1) {
      t.storage = "events";
      t.storage_version_hash = storage_version_hash("", "v1", "Event");
      t.converted = true;
    }
    if (t.id == KindId::HorizontalPodAutoscalerV1) {
      t.storage_version_hash = storage_version_hash("autoscaling", "v2", t.kind);
      t.converted = true;
    }
  }
  return out;
}

const std::vector<GroupVersions>& builtin_groups() {
  return kBuiltinGroups;
}

}  // namespace respool::sandbox
