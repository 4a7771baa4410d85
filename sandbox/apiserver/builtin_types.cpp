// The built-in kinds: one row per served resource, as kube-apiserver v1.32 lists it in discovery
// (k8s-reference/discovery-*.txt): group, version, kind, plural, scope, verbs, short names,
// categories, subresources, and what the sandbox does with it (defaults, status on create,
// printer). Behaviour that data cannot say lives in code keyed by the row's KindId:
//   defaults/status/conversion  kinds_defaults.cpp, kinds_convert.cpp
//   validation                  kinds_rules.cpp, kinds_validate.cpp
//   tables                      printers_*.cpp
//   controllers folded in       engine.cpp (after_change), rbac/
//   not stored (reviews, ...)   virtual_kinds.cpp

#include "sandbox/apiserver/builtin_types.hpp"

#include "sandbox/apiserver/printers.hpp"

namespace respool::sandbox {
namespace {

enum Flags : unsigned {
  kNone = 0,
  kGeneration = 1,      // metadata.generation set and bumped on spec changes
  kReturnsDeleted = 2,  // DELETE answers the object
  kVirtual = 4,         // not stored: a handler answers (reviews, bindings, component statuses)
  kCreateOnUpdate = 8,  // PUT of a missing object creates it
};

constexpr const char* kAll = "create,delete,deletecollection,get,list,patch,update,watch";

struct Row {
  KindId id;
  const char* group;
  const char* version;
  const char* kind;
  const char* plural;
  bool namespaced;
  const char* short_names;   // comma-separated
  const char* categories;    // comma-separated
  const char* subresources;  // comma-separated names, see subresource()
  unsigned flags;
  const PrinterDef* printer;
  const char* defaults = "";       // JSON, see kinds::apply_defaults
  const char* create_status = "";  // JSON: the status a create starts from ("" keeps it)
  const char* template_parent = nullptr;
  const char* verbs = kAll;
  NameRule name_rule = NameRule::Subdomain;
};

constexpr bool N = true;   // namespaced
constexpr bool C = false;  // cluster-scoped

// clang-format off
const Row kRows[] = {
  // core/v1
  {KindId::Binding, "", "v1", "Binding", "bindings", N, "", "", "", kVirtual, nullptr, "", "", nullptr, "create"},
  {KindId::ComponentStatus, "", "v1", "ComponentStatus", "componentstatuses", C, "cs", "", "", kVirtual, &printers::component_status, "", "", nullptr, "get,list"},
  {KindId::ConfigMap, "", "v1", "ConfigMap", "configmaps", N, "cm", "", "", kNone, &printers::config_map},
  {KindId::Builtin, "", "v1", "Endpoints", "endpoints", N, "ep", "", "", kCreateOnUpdate, &printers::endpoints},
  {KindId::Event, "", "v1", "Event", "events", N, "ev", "", "", kCreateOnUpdate, &printers::event},
  {KindId::Builtin, "", "v1", "LimitRange", "limitranges", N, "limits", "", "", kCreateOnUpdate, nullptr},
  {KindId::Namespace, "", "v1", "Namespace", "namespaces", C, "ns", "", "finalize,status", kReturnsDeleted, &printers::namespace_, "", "", nullptr, "create,delete,get,list,patch,update,watch", NameRule::Label},
  {KindId::Node, "", "v1", "Node", "nodes", C, "no", "", "proxy,status", kNone, &printers::node},
  {KindId::Builtin, "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", N, "pvc", "", "status", kNone, &printers::persistent_volume_claim,
   R"({"spec":{"volumeMode":"Filesystem"}})", R"({"phase":"Pending"})"},
  {KindId::Builtin, "", "v1", "PersistentVolume", "persistentvolumes", C, "pv", "", "status", kNone, &printers::persistent_volume,
   R"({"spec":{"persistentVolumeReclaimPolicy":"Retain","volumeMode":"Filesystem"}})", R"({"phase":"Pending"})"},
  {KindId::Pod, "", "v1", "Pod", "pods", N, "po", "all", "attach,binding,ephemeralcontainers,eviction,exec,log,portforward,proxy,status", kReturnsDeleted, &printers::pod},
  {KindId::Builtin, "", "v1", "PodTemplate", "podtemplates", N, "", "", "", kGeneration, &printers::pod_template, "", "", ""},
  {KindId::ReplicationController, "", "v1", "ReplicationController", "replicationcontrollers", N, "rc", "all", "scale,status", kGeneration, &printers::replication_controller,
   R"({"spec":{"replicas":1}})", R"({"replicas":0})", "spec"},
  {KindId::ResourceQuota, "", "v1", "ResourceQuota", "resourcequotas", N, "quota", "", "status", kNone, &printers::resource_quota, "", "{}"},
  {KindId::Secret, "", "v1", "Secret", "secrets", N, "", "", "", kNone, &printers::secret},
  {KindId::ServiceAccount, "", "v1", "ServiceAccount", "serviceaccounts", N, "sa", "", "token", kNone, &printers::service_account},
  {KindId::Service, "", "v1", "Service", "services", N, "svc", "all", "proxy,status", kReturnsDeleted, &printers::service, "", "", nullptr, kAll, NameRule::Rfc1035},
  // apiregistration.k8s.io/v1
  {KindId::Builtin, "apiregistration.k8s.io", "v1", "APIService", "apiservices", C, "", "api-extensions", "status", kNone, &printers::api_service, "", "{}"},
  // apps/v1
  {KindId::Builtin, "apps", "v1", "ControllerRevision", "controllerrevisions", N, "", "", "", kNone, &printers::controller_revision},
  {KindId::DaemonSet, "apps", "v1", "DaemonSet", "daemonsets", N, "ds", "all", "status", kGeneration, &printers::daemon_set},
  {KindId::Deployment, "apps", "v1", "Deployment", "deployments", N, "deploy", "all", "scale,status", kGeneration, &printers::deployment},
  {KindId::ReplicaSet, "apps", "v1", "ReplicaSet", "replicasets", N, "rs", "all", "scale,status", kGeneration, &printers::replica_set,
   R"({"spec":{"replicas":1}})", R"({"replicas":0})", "spec"},
  {KindId::StatefulSet, "apps", "v1", "StatefulSet", "statefulsets", N, "sts", "all", "scale,status", kGeneration, &printers::stateful_set,
   R"({"spec":{"replicas":1,"podManagementPolicy":"OrderedReady","updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},"revisionHistoryLimit":10,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"}}})",
   R"({"replicas":0,"availableReplicas":0})", "spec"},
  // events.k8s.io/v1
  {KindId::EventV1, "events.k8s.io", "v1", "Event", "events", N, "ev", "", "", kCreateOnUpdate, &printers::event},
  // authentication.k8s.io/v1
  {KindId::SelfSubjectReview, "authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", C, "", "", "", kVirtual, nullptr, "", "", nullptr, "create"},
  {KindId::TokenReview, "authentication.k8s.io", "v1", "TokenReview", "tokenreviews", C, "", "", "", kVirtual, nullptr, "", "", nullptr, "create"},
  // authorization.k8s.io/v1
  {KindId::LocalSubjectAccessReview, "authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", N, "", "", "", kVirtual, nullptr, "", "", nullptr, "create"},
  {KindId::SelfSubjectAccessReview, "authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", C, "", "", "", kVirtual, nullptr, "", "", nullptr, "create"},
  {KindId::SelfSubjectRulesReview, "authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", C, "", "", "", kVirtual, nullptr, "", "", nullptr, "create"},
  {KindId::SubjectAccessReview, "authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", C, "", "", "", kVirtual, nullptr, "", "", nullptr, "create"},
  // autoscaling/v2 (stored) and v1
  {KindId::HorizontalPodAutoscaler, "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", N, "hpa", "all", "status", kGeneration, &printers::horizontal_pod_autoscaler,
   R"({"spec":{"minReplicas":1}})", R"({"currentReplicas":0,"desiredReplicas":0})"},
  {KindId::HorizontalPodAutoscalerV1, "autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", N, "hpa", "all", "status", kGeneration, &printers::horizontal_pod_autoscaler,
   R"({"spec":{"minReplicas":1}})", R"({"currentReplicas":0,"desiredReplicas":0})"},
  // batch/v1
  {KindId::CronJob, "batch", "v1", "CronJob", "cronjobs", N, "cj", "all", "status", kGeneration, &printers::cron_job,
   R"({"spec":{"concurrencyPolicy":"Allow","suspend":false,"successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1}})", "{}", "spec.jobTemplate.spec"},
  {KindId::Job, "batch", "v1", "Job", "jobs", N, "", "all", "status", kGeneration, &printers::job},
  // certificates.k8s.io/v1
  {KindId::Builtin, "certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", C, "csr", "", "approval,status", kNone, &printers::certificate_signing_request, "", "{}"},
  // networking.k8s.io/v1
  {KindId::Builtin, "networking.k8s.io", "v1", "IngressClass", "ingressclasses", C, "", "", "", kNone, &printers::ingress_class},
  {KindId::Builtin, "networking.k8s.io", "v1", "Ingress", "ingresses", N, "ing", "", "status", kGeneration, &printers::ingress, "", R"({"loadBalancer":{}})"},
  {KindId::NetworkPolicy, "networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", N, "netpol", "", "", kGeneration, &printers::network_policy},
  // policy/v1
  {KindId::PodDisruptionBudget, "policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", N, "pdb", "", "status", kGeneration, &printers::pod_disruption_budget},
  // rbac.authorization.k8s.io/v1
  {KindId::ClusterRoleBinding, "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", C, "", "", "", kCreateOnUpdate, &printers::cluster_role_binding, "", "", nullptr, kAll, NameRule::PathSegment},
  {KindId::ClusterRole, "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", C, "", "", "", kCreateOnUpdate, nullptr, R"({"rules":null})", "", nullptr, kAll, NameRule::PathSegment},
  {KindId::RoleBinding, "rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", N, "", "", "", kCreateOnUpdate, &printers::role_binding, "", "", nullptr, kAll, NameRule::PathSegment},
  {KindId::Role, "rbac.authorization.k8s.io", "v1", "Role", "roles", N, "", "", "", kCreateOnUpdate, nullptr, R"({"rules":null})", "", nullptr, kAll, NameRule::PathSegment},
  // storage.k8s.io/v1
  {KindId::Builtin, "storage.k8s.io", "v1", "CSIDriver", "csidrivers", C, "", "", "", kNone, &printers::csi_driver,
   R"({"spec":{"attachRequired":true,"podInfoOnMount":false,"storageCapacity":false,"fsGroupPolicy":"ReadWriteOnceWithFSType","requiresRepublish":false,"volumeLifecycleModes":["Persistent"],"seLinuxMount":false}})"},
  {KindId::Builtin, "storage.k8s.io", "v1", "CSINode", "csinodes", C, "", "", "", kNone, &printers::csi_node},
  {KindId::Builtin, "storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", N, "", "", "", kNone, &printers::csi_storage_capacity},
  {KindId::Builtin, "storage.k8s.io", "v1", "StorageClass", "storageclasses", C, "sc", "", "", kNone, &printers::storage_class,
   R"({"reclaimPolicy":"Delete","volumeBindingMode":"Immediate"})"},
  {KindId::Builtin, "storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", C, "", "", "status", kNone, &printers::volume_attachment, "", R"({"attached":false})"},
  // admissionregistration.k8s.io/v1: stored, never called
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", C, "", "api-extensions", "", kGeneration, &printers::webhook_configuration,
   R"({"webhooks":{"[]":{"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"reinvocationPolicy":"Never","timeoutSeconds":10,"rules":{"[]":{"scope":"*"}},"clientConfig":{"?service":{"port":443}}}}})"},
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", C, "", "api-extensions", "status", kGeneration, &printers::validating_admission_policy,
   R"({"spec":{"failurePolicy":"Fail","?matchConstraints":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}}}})", "{}"},
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", C, "", "api-extensions", "", kGeneration, &printers::validating_admission_policy_binding,
   R"({"spec":{"?paramRef":{"parameterNotFoundAction":"Deny"},"?matchResources":{"matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{}}}})"},
  {KindId::Builtin, "admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", C, "", "api-extensions", "", kGeneration, &printers::webhook_configuration,
   R"({"webhooks":{"[]":{"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"timeoutSeconds":10,"rules":{"[]":{"scope":"*"}},"clientConfig":{"?service":{"port":443}}}}})"},
  // apiextensions.k8s.io/v1
  {KindId::CustomResourceDefinition, "apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", C, "crd,crds", "api-extensions", "status", kGeneration, nullptr, "", "", nullptr, kAll, NameRule::None},
  // scheduling.k8s.io/v1
  {KindId::PriorityClass, "scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", C, "pc", "", "", kNone, &printers::priority_class,
   R"({"preemptionPolicy":"PreemptLowerPriority"})"},
  // coordination.k8s.io/v1
  {KindId::Lease, "coordination.k8s.io", "v1", "Lease", "leases", N, "", "", "", kCreateOnUpdate, &printers::lease},
  // node.k8s.io/v1
  {KindId::Builtin, "node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", C, "", "", "", kNone, &printers::runtime_class},
  // discovery.k8s.io/v1
  {KindId::Builtin, "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", N, "", "", "", kGeneration, &printers::endpoint_slice},
  // flowcontrol.apiserver.k8s.io/v1
  {KindId::Builtin, "flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", C, "", "", "status", kNone, &printers::flow_schema, "", "{}"},
  {KindId::Builtin, "flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", C, "", "", "status", kNone, &printers::priority_level_configuration, "", "{}"},
};

// The groups in the order of kube-apiserver's /apis, each with its versions, preferred first.
const std::vector<GroupVersions> kGroups = {
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

const std::vector<std::string> kSubVerbs = {"get", "patch", "update"};

std::vector<std::string> split(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

// A subresource as discovery shows it: the kind of its body and its verbs.
SubresourceInfo subresource(const std::string& name, const std::string& kind) {
  if (name == "status" || name == "approval") return {name, "", "", "", kSubVerbs};
  if (name == "ephemeralcontainers") return {name, "", "", "", kSubVerbs};
  if (name == "scale") return {name, "autoscaling", "v1", "Scale", kSubVerbs};
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

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

ResourceType from_row(const Row& row) {
  ResourceType t;
  t.id = row.id;
  t.group = row.group;
  t.version = row.version;
  t.kind = row.kind;
  t.plural = row.plural;
  t.singular = lower(t.kind);
  t.list_kind = t.kind + "List";
  t.namespaced = row.namespaced;
  t.verbs = split(row.verbs);
  t.short_names = split(row.short_names);
  t.categories = split(row.categories);
  for (const std::string& s : split(row.subresources)) {
    t.subresources.push_back(subresource(s, t.kind));
    if (s == "status") t.status_subresource = true;
  }
  if (t.has_subresource("scale")) t.scale = ScalePaths{".spec.replicas", ".status.replicas", ""};
  t.tracks_generation = row.flags & kGeneration;
  t.returns_deleted_object = row.flags & kReturnsDeleted;
  t.stored = !(row.flags & kVirtual);
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
  for (const Row& row : kRows)
    out.push_back(from_row(row));
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
  return kGroups;
}

}  // namespace respool::sandbox
