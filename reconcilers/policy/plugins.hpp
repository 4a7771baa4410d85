#pragma once
// The plug-ins a pool's job types install (P2, P12): the catalog's manifests rendered for one
// pool, and what they take from the pool.
//
// Templating (the catalog's manifests are templates):
//   - in every string value, {{pool}} becomes the pool's name, {{jobType}} the job type
//     ("Training") and {{jobTypeLabel}} its lower-case form ("training");
//   - metadata.name becomes "<pool>-<jobtype>-<name>" (gpu-a-training-agent);
//   - metadata.namespace defaults to the operator's namespace when the manifest has none;
//   - metadata.labels gain respool.io/pool=<pool> and respool.io/job-type=<jobtype>, and
//     app.kubernetes.io/managed-by=respool;
//   - metadata.ownerReferences is the pool (controller, blockOwnerDeletion), so that the garbage
//     collector removes the plug-ins with it;
//   - for workloads with a pod template (DaemonSet, Deployment, StatefulSet): the selector and the
//     template's labels gain respool.io/pool=<pool> (two pools' plug-ins never select each
//     other's pods), the pod's nodeSelector gains respool.io/pool=<pool>, and its tolerations
//     the pool's taint respool.io/pool=<pool>:NoSchedule.

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apimachinery/quantity.hpp"
#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/types.hpp"

namespace respool::policy {

using apimachinery::Quantity;
// A resource list: resource name → quantity ("cpu" → 2, "memory" → 4Gi).
using ResourceList = std::map<std::string, Quantity>;

struct PoolRef {
  std::string name;
  std::string uid;  // for the owner reference
};

struct RenderedPlugin {
  JobType job_type = JobType::Training;
  std::string kind;
  std::string name;
  std::string namespace_name;
  nlohmann::json manifest;
};

// The plug-ins of `job_types` for the pool, in catalog order per job type.
std::vector<RenderedPlugin> render_plugins(const Catalog& catalog, const PoolRef& pool,
                                           std::span<const JobType> job_types,
                                           std::string_view default_namespace);

// An installed plug-in object as observed (from the cache): its identity and its job-type label.
struct InstalledPlugin {
  std::string kind;
  std::string namespace_name;
  std::string name;
};
// Installed plug-ins that no desired one matches (a job type was removed, or the catalog
// changed): the ones to delete.
std::vector<InstalledPlugin> stale_plugins(std::span<const InstalledPlugin> installed,
                                           std::span<const RenderedPlugin> desired);

// A pod's effective requests: max(sum of containers, each init container), per resource.
ResourceList pod_requests(const nlohmann::json& pod_spec);
// One pod's requests × pods: a DaemonSet runs one per pool node it runs on (`pool_nodes`), a
// Deployment or StatefulSet spec.replicas (default 1); other kinds take nothing from nodes.
ResourceList plugin_requests(const RenderedPlugin& plugin, int pool_nodes);

// Whether an observed DaemonSet / Deployment / StatefulSet has rolled out: its controller saw the
// current generation and every pod it wants is updated and ready. Other kinds: true once present.
bool workload_ready(const nlohmann::json& observed);

// The P12 status entry {jobType, name, ready, requests}.
struct PluginStatus {
  JobType job_type = JobType::Training;
  std::string name;
  bool ready = false;
  ResourceList requests;
  bool operator==(const PluginStatus&) const = default;
};
PluginStatus plugin_status(const RenderedPlugin& plugin, int pool_nodes, bool ready);
nlohmann::json to_json(const PluginStatus& status);

}  // namespace respool::policy
