#include "operator/kube/resource.hpp"

#include "operator/http/message.hpp"

namespace respool::kube {

std::string Resource::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string Resource::qualified_name() const {
  return group.empty() ? plural : plural + "." + group;
}

std::string Resource::collection_path(std::string_view ns) const {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) {
    path += "/namespaces/";
    path += http::percent_encode(ns);
  }
  path += "/";
  path += plural;
  return path;
}

std::string Resource::item_path(std::string_view ns, std::string_view name,
                                std::string_view subresource) const {
  std::string path = collection_path(ns);
  path += "/";
  path += http::percent_encode(name);
  if (!subresource.empty()) {
    path += "/";
    path += subresource;
  }
  return path;
}

namespace resources {
const Resource namespaces{"", "v1", "namespaces", "Namespace", false};
const Resource nodes{"", "v1", "nodes", "Node", false};
const Resource pods{"", "v1", "pods", "Pod", true};
const Resource events{"", "v1", "events", "Event", true};
const Resource events_v1{"events.k8s.io", "v1", "events", "Event", true};
const Resource configmaps{"", "v1", "configmaps", "ConfigMap", true};
const Resource secrets{"", "v1", "secrets", "Secret", true};
const Resource serviceaccounts{"", "v1", "serviceaccounts", "ServiceAccount", true};
const Resource services{"", "v1", "services", "Service", true};
const Resource daemonsets{"apps", "v1", "daemonsets", "DaemonSet", true};
const Resource deployments{"apps", "v1", "deployments", "Deployment", true};
const Resource jobs{"batch", "v1", "jobs", "Job", true};
const Resource leases{"coordination.k8s.io", "v1", "leases", "Lease", true};
const Resource poddisruptionbudgets{"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget",
                                    true};
const Resource customresourcedefinitions{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                         "CustomResourceDefinition", false};
const Resource networks{"respool.io", "v1alpha1", "networks", "Network", false};
const Resource resourcepools{"respool.io", "v1alpha1", "resourcepools", "ResourcePool", false};
const Resource nodeoperations{"respool.io", "v1alpha1", "nodeoperations", "NodeOperation", false};
const Resource diagnoses{"respool.io", "v1alpha1", "diagnoses", "Diagnosis", true};
}  // namespace resources

}  // namespace respool::kube
