#pragma once
// What every respool controller shares: the API client, the caches, the catalog, the clock,
// the event recorder, the audit stream and the domain metrics.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "operator/kube/client.hpp"
#include "operator/kube/selector.hpp"
#include "operator/runtime/clock.hpp"
#include "operator/runtime/controller.hpp"
#include "operator/runtime/event_recorder.hpp"
#include "operator/runtime/informer.hpp"
#include "reconcilers/catalog_source.hpp"
#include "reconcilers/domain_metrics.hpp"
#include "reconcilers/free_node_index.hpp"
#include "reconcilers/node_view_cache.hpp"
#include "reconcilers/pool_locks.hpp"
#include "reconcilers/reconcile_error.hpp"
#include "reconcilers/written_versions.hpp"

namespace respool::reconcilers {

// Cache index names.
inline constexpr const char* kByPool = "pool";      // nodes, plug-ins, reset Jobs: respool.io/pool
                                                    // label; NodeOperations: spec.pool
inline constexpr const char* kByFlavor = "flavor";  // nodes: the flavor label's value
inline constexpr const char* kByNode = "node";      // pods: spec.nodeName
inline constexpr const char* kByNetwork = "network";  // pools: spec.network
inline constexpr const char* kByJob = "job";  // pods: "namespace/name" of their controlling Job

struct Caches {
  runtime::Informer<kube::Unstructured>* networks = nullptr;
  runtime::Informer<kube::Unstructured>* pools = nullptr;
  runtime::Informer<kube::Node>* nodes = nullptr;
  runtime::Informer<kube::Pod>* pods = nullptr;
  runtime::Informer<kube::Unstructured>* plugins = nullptr;     // DaemonSets respool installed
  runtime::Informer<kube::Unstructured>* operations = nullptr;  // NodeOperations
  // Jobs respool runs on nodes (the NodeOperation controller's own).
  runtime::Informer<kube::Unstructured>* reset_jobs = nullptr;
  // Every Job; whole only for training jobs (fault-tolerance/* annotations), else metadata.
  runtime::Informer<kube::Unstructured>* training_jobs = nullptr;
};

struct Context {
  kube::Client* client = nullptr;
  runtime::Clock* clock = nullptr;
  runtime::EventRecorder* events = nullptr;
  CatalogSource* catalog = nullptr;
  DomainMetrics* metrics = nullptr;
  NodeViewCache* node_views = nullptr;  // policy views of the nodes cache
  FreeNodeIndex* free_nodes = nullptr;  // the free nodes of the nodes cache (N9)
  PoolLocks* pool_locks = nullptr;      // one reconcile of a pool at a time, across controllers
  // Node claims and releases the nodes cache has not shown yet, by pool (the pool and
  // NodeOperation controllers both claim into a pool).
  WrittenVersions* node_writes = nullptr;
  Caches caches;
  std::string operator_namespace;
  kube::LabelSelector job_selector;
  // Run after the catalog changed: each controller re-enqueues what it may now decide anew.
  std::vector<std::function<void()>> on_catalog_change;
};

// The ObjectReference of a cluster-scoped respool object, for events.
runtime::ObjectReference reference_to(const kube::Unstructured& object);

// `reconcile` of respool's objects in `cache`, each failure of which is also reported on the
// object: a Warning event ReconcileFailed with the error, which names the request and the API
// server's answer (a 403 names the missing RBAC permission). The log alone would leave
// `kubectl describe` showing an object that never moves, and nothing saying why.
runtime::Reconciler reporting_failures(const Context& ctx,
                                       const runtime::Informer<kube::Unstructured>& cache,
                                       runtime::Reconciler reconcile);

// Whether claims or releases of `pool`'s nodes are still missing from the nodes cache.
bool node_writes_behind(const Context& ctx, const std::string& pool, runtime::TimePoint now);

// Writes one audit record: a JSON line on the audit stream.
void write_audit(const std::string& line);

}  // namespace respool::reconcilers
