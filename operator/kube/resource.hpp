#pragma once
// Where a kind lives in the REST API.

#include <string>
#include <string_view>

namespace respool::kube {

struct Resource {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string plural;   // "nodes"
  std::string kind;     // "Node"
  bool namespaced = false;

  // "v1" or "apps/v1".
  std::string api_version() const;
  // "nodes" or "daemonsets.apps", as kubectl and error messages name a resource.
  std::string qualified_name() const;
  // "/api/v1/nodes", "/apis/apps/v1/namespaces/NS/daemonsets". An empty ns on a namespaced
  // resource means all namespaces.
  std::string collection_path(std::string_view ns = {}) const;
  // ".../NAME" or ".../NAME/SUBRESOURCE"; name and ns are percent-encoded.
  std::string item_path(std::string_view ns, std::string_view name,
                        std::string_view subresource = {}) const;
};

// The resources respool and its sandbox use.
namespace resources {
extern const Resource namespaces;
extern const Resource nodes;
extern const Resource pods;
extern const Resource events;     // core/v1
extern const Resource events_v1;  // events.k8s.io/v1
extern const Resource configmaps;
extern const Resource secrets;
extern const Resource serviceaccounts;
extern const Resource services;
extern const Resource daemonsets;
extern const Resource deployments;
extern const Resource jobs;
extern const Resource leases;
extern const Resource poddisruptionbudgets;
extern const Resource customresourcedefinitions;
extern const Resource networks;        // respool.io/v1alpha1
extern const Resource resourcepools;   // respool.io/v1alpha1
extern const Resource nodeoperations;  // respool.io/v1alpha1
extern const Resource diagnoses;       // respool.io/v1alpha1, namespaced
}  // namespace resources

}  // namespace respool::kube
