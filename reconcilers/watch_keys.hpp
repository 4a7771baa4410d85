#pragma once
// How events of cached objects map to controllers' keys, written once for every controller:
// the pool an object belongs to (its respool.io/pool label, a NodeOperation's spec.pool, a
// pod's node's label), and a pool's network.

#include <functional>
#include <string>
#include <vector>

#include "operator/kube/objects.hpp"
#include "operator/runtime/informer.hpp"
#include "reconcilers/policy/keys.hpp"

namespace respool::reconcilers {

using Keys = std::vector<std::string>;

// The respool.io/pool label's value, if any.
Keys pool_label(const kube::StringMap& labels);

template <class T>
Keys pool_of(const T& object) {
  return pool_label(object.meta.labels);
}

// A NodeOperation's spec.pool.
Keys operation_pool(const kube::Unstructured& operation);

// A ResourcePool's spec.network.
Keys pool_network(const kube::Unstructured& pool);

// The pool of the node a pod runs on, when the node passes `accept` (default: any node).
using NodeFilter = std::function<bool(const kube::Node&)>;
std::function<Keys(const kube::Pod&)> pool_of_pod_node(const runtime::Informer<kube::Node>& nodes,
                                                       NodeFilter accept = {});

// Every key of a cache (a change that concerns all of its objects).
template <class T>
std::function<Keys(const T&)> all_keys_of(const runtime::Informer<kube::Unstructured>& cache) {
  return [&cache](const T&) { return cache.store().keys(); };
}

}  // namespace respool::reconcilers
