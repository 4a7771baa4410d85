// The built-in resource types the sandbox serves, with discovery data as kube-apiserver v1.32
// reports it (k8s-reference/discovery-*.txt).

#include "sandbox/apiserver/builtin_types.hpp"

namespace respool::sandbox {
namespace {

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};
const std::vector<std::string> kSubVerbs = {"get", "patch", "update"};

ResourceType make(KindId id, std::string group, std::string plural, std::string singular,
                  std::string kind, bool namespaced, std::vector<std::string> short_names = {},
                  std::vector<std::string> categories = {}) {
  ResourceType t;
  t.id = id;
  t.group = std::move(group);
  t.version = "v1";
  t.plural = std::move(plural);
  t.singular = std::move(singular);
  t.kind = std::move(kind);
  t.list_kind = t.kind + "List";
  t.namespaced = namespaced;
  t.verbs = kAllVerbs;
  t.short_names = std::move(short_names);
  t.categories = std::move(categories);
  t.storage = t.group.empty() ? t.plural : t.plural + "." + t.group;
  t.storage_version_hash = storage_version_hash(t.group, t.version, t.kind);
  return t;
}

ResourceType with_status(ResourceType t) {
  t.status_subresource = true;
  t.subresources.push_back({"status", "", "", "", kSubVerbs});
  return t;
}

}  // namespace

std::vector<ResourceType> builtin_types() {
  std::vector<ResourceType> out;

  ResourceType cm =
      make(KindId::ConfigMap, "", "configmaps", "configmap", "ConfigMap", true, {"cm"});
  out.push_back(cm);

  ResourceType events = make(KindId::Event, "", "events", "event", "Event", true, {"ev"});
  out.push_back(events);

  ResourceType ns = with_status(
      make(KindId::Namespace, "", "namespaces", "namespace", "Namespace", false, {"ns"}));
  ns.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  ns.returns_deleted_object = true;
  out.push_back(ns);

  out.push_back(with_status(make(KindId::Node, "", "nodes", "node", "Node", false, {"no"})));

  ResourceType pods = make(KindId::Pod, "", "pods", "pod", "Pod", true, {"po"}, {"all"});
  pods.status_subresource = true;
  pods.returns_deleted_object = true;
  pods.subresources = {{"binding", "", "", "Binding", {"create"}},
                       {"eviction", "policy", "v1", "Eviction", {"create"}},
                       {"status", "", "", "", kSubVerbs}};
  out.push_back(pods);

  out.push_back(make(KindId::Secret, "", "secrets", "secret", "Secret", true));
  out.push_back(make(KindId::ServiceAccount, "", "serviceaccounts", "serviceaccount",
                     "ServiceAccount", true, {"sa"}));
  ResourceType svc = with_status(
      make(KindId::Service, "", "services", "service", "Service", true, {"svc"}, {"all"}));
  svc.returns_deleted_object = true;
  out.push_back(svc);

  ResourceType ds = with_status(make(KindId::DaemonSet, "apps", "daemonsets", "daemonset",
                                     "DaemonSet", true, {"ds"}, {"all"}));
  ds.tracks_generation = true;
  out.push_back(ds);

  ResourceType deploy = make(KindId::Deployment, "apps", "deployments", "deployment", "Deployment",
                             true, {"deploy"}, {"all"});
  deploy.status_subresource = true;
  deploy.tracks_generation = true;
  deploy.scale = ScalePaths{".spec.replicas", ".status.replicas", ""};
  deploy.subresources = {{"scale", "autoscaling", "v1", "Scale", kSubVerbs},
                         {"status", "", "", "", kSubVerbs}};
  out.push_back(deploy);

  ResourceType events_v1 =
      make(KindId::EventV1, "events.k8s.io", "events", "event", "Event", true, {"ev"});
  events_v1.storage = "events";
  events_v1.storage_version_hash = events.storage_version_hash;
  out.push_back(events_v1);

  ResourceType job =
      with_status(make(KindId::Job, "batch", "jobs", "job", "Job", true, {}, {"all"}));
  job.tracks_generation = true;
  out.push_back(job);

  ResourceType pdb = with_status(make(KindId::PodDisruptionBudget, "policy", "poddisruptionbudgets",
                                      "poddisruptionbudget", "PodDisruptionBudget", true, {"pdb"}));
  pdb.tracks_generation = true;
  out.push_back(pdb);

  ResourceType crd =
      with_status(make(KindId::CustomResourceDefinition, "apiextensions.k8s.io",
                       "customresourcedefinitions", "customresourcedefinition",
                       "CustomResourceDefinition", false, {"crd", "crds"}, {"api-extensions"}));
  crd.tracks_generation = true;
  out.push_back(crd);

  out.push_back(make(KindId::Lease, "coordination.k8s.io", "leases", "lease", "Lease", true));
  return out;
}

std::vector<std::string> builtin_group_order() {
  // The order of kube-apiserver's /apis, restricted to the groups served here.
  return {"",
          "apps",
          "events.k8s.io",
          "batch",
          "policy",
          "apiextensions.k8s.io",
          "coordination.k8s.io"};
}

}  // namespace respool::sandbox
