#pragma once
// What the simulated components share: one API client, the clock, and the informers whose
// caches they read (whole objects: the simulator needs spec details the compact types drop).

#include <memory>
#include <string>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/kube/objects.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/controller.hpp"
#include "operator/runtime/informer.hpp"

namespace respool::sandbox::sim {

using Json = nlohmann::json;
using ObjectInformer = runtime::Informer<kube::Unstructured>;
using ObjectPtr = std::shared_ptr<const kube::Unstructured>;

// Pod cache indexes.
inline constexpr const char* kByNode = "node";    // spec.nodeName ("" = not bound)
inline constexpr const char* kByOwner = "owner";  // "Kind/namespace/name" of the controller

struct Timing {
  // A deleted pod's containers stop this long after the delete (or its grace period, if
  // shorter), then the kubelet removes it.
  runtime::Duration termination{std::chrono::seconds(1)};
  // A driver pod has run this long before the node's driver label shows its version.
  runtime::Duration driver_install{std::chrono::seconds(10)};
  // A node reset pod (respool.io/reset-os) runs this long, unless the pod or its node says
  // otherwise (sandbox.respool.io/run-seconds, sandbox.respool.io/reset-seconds).
  runtime::Duration node_reset{std::chrono::seconds(60)};
  // Writes the informers have not shown after this long are forgotten.
  runtime::Duration expectations_ttl{std::chrono::minutes(5)};
};

struct Cluster {
  kube::Client& client;
  runtime::Clock& clock;
  ObjectInformer& nodes;
  ObjectInformer& pods;
  ObjectInformer& daemonsets;
  ObjectInformer& jobs;
  ObjectInformer& controllerrevisions;  // of DaemonSets and StatefulSets
  Timing timing;
};

// The controller owner index value of a pod ("" when it has no controller).
std::string owner_key(const kube::ObjectMeta& meta);
std::string owner_key(std::string_view kind, std::string_view ns, std::string_view name);
// Whether the simulator plays this node's kubelet.
bool simulated(const Json& node);
// Registers the pod indexes (before the informer starts).
void add_pod_indexes(ObjectInformer& pods);

// The informers' transform: metadata.managedFields dropped before an object is cached, as
// client-go's TransformStripManagedFields (nothing here reads them, and the server keeps them
// on a write that sends none). Over half of a stored pod's decoded size: bench_scale's 300,000
// pods did not fit beside the API server's store without it.
void strip_managed_fields(kube::Unstructured& object);

// "ns/name" for a namespaced object, from its JSON.
std::string object_key(const Json& object);

runtime::ControllerOptions controller_options(std::string name, int workers);

// Seconds of a duration, for API fields and requeues.
runtime::Duration seconds(double s);

}  // namespace respool::sandbox::sim
