#include "reconcilers/node_view_cache.hpp"

#include <algorithm>

#include "reconcilers/views.hpp"

namespace respool::reconcilers {

NodeViewCache::ViewPtr NodeViewCache::view(const NodePtr& node) {
  std::lock_guard lock(mu_);
  Entry& entry = entries_[node->meta.name];
  // Same object, same view. Comparing owners, not addresses: a freed node's address can be
  // reused by a newer one, but a live shared_ptr cannot share ownership with an expired one.
  if (entry.view && !entry.source.owner_before(node) && !node.owner_before(entry.source)) {
    return entry.view;
  }
  entry.source = node;
  entry.view = std::make_shared<const policy::NodeView>(to_node_view(*node));
  if (++built_since_sweep_ >= std::max<std::size_t>(kept_at_sweep_, 64)) sweep_locked();
  return entry.view;
}

std::size_t NodeViewCache::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

// Drops the views of nodes the cache no longer holds (deleted nodes), at a cost spread over
// as many builds as there were entries left by the previous sweep.
void NodeViewCache::sweep_locked() {
  built_since_sweep_ = 0;
  std::erase_if(entries_, [](const auto& e) { return e.second.source.expired(); });
  kept_at_sweep_ = entries_.size();
}

}  // namespace respool::reconcilers
