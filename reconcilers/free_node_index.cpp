#include "reconcilers/free_node_index.hpp"

namespace respool::reconcilers {

void FreeNodeIndex::observe(const NodePtr& node) {
  std::lock_guard lock(mu_);
  if (catalog_) observe_locked(node);  // before the first list(), that list builds everything
}

void FreeNodeIndex::forget(const NodePtr& node) {
  std::lock_guard lock(mu_);
  free_.erase(node->meta.name);
}

void FreeNodeIndex::observe_locked(const NodePtr& node) {
  if (auto free = policy::free_node(*views_.view(node), *catalog_)) {
    free_.insert_or_assign(node->meta.name, std::move(*free));
  } else {
    free_.erase(node->meta.name);
  }
}

std::vector<policy::FreeNode> FreeNodeIndex::list(
    const CatalogPtr& catalog, const std::function<std::vector<NodePtr>()>& all_nodes) {
  std::lock_guard lock(mu_);
  if (catalog != catalog_) {
    // Under the lock, so that a handler's update either is in this snapshot already or waits
    // and is applied after it: never overwritten by an older version.
    catalog_ = catalog;
    free_.clear();
    for (const auto& node : all_nodes())
      observe_locked(node);
  }
  std::vector<policy::FreeNode> out;
  out.reserve(free_.size());
  for (const auto& [name, free] : free_)
    out.push_back(free);
  return out;
}

}  // namespace respool::reconcilers
