#pragma once
// The free nodes (N9) of the nodes cache, kept up to date by the cache's event handlers. A pool
// being built plans against the free list on every round; recomputing it from thousands of
// cached nodes each time put that cost on the reconcile's path. The index recomputes a node
// only when the cache sees it change, and everything only when the catalog changes.
//
// It follows the cache a moment behind (handlers run after the cache is updated): a node may
// still be listed as free at the version planned from, which the claim's resourceVersion guard
// and the reconciler's version check refuse.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "operator/kube/objects.hpp"
#include "reconcilers/node_view_cache.hpp"
#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/node_state.hpp"

namespace respool::reconcilers {

class FreeNodeIndex {
 public:
  using NodePtr = std::shared_ptr<const kube::Node>;
  using CatalogPtr = std::shared_ptr<const policy::Catalog>;

  explicit FreeNodeIndex(NodeViewCache& views) : views_(views) {}

  // The cache's handlers: a node was added or changed; a node was deleted.
  void observe(const NodePtr& node);
  void forget(const NodePtr& node);

  // The free nodes under `catalog`, sorted by name. When the catalog is not the one the index
  // was built with (or on the first call), it is rebuilt from `all_nodes`, the whole cache.
  std::vector<policy::FreeNode> list(const CatalogPtr& catalog,
                                     const std::function<std::vector<NodePtr>()>& all_nodes);

 private:
  void observe_locked(const NodePtr& node);

  NodeViewCache& views_;
  std::mutex mu_;
  CatalogPtr catalog_;  // what the entries were computed with; null until the first list()
  std::map<std::string, policy::FreeNode> free_;
};

}  // namespace respool::reconcilers
