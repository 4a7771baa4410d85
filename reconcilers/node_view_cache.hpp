#pragma once
// Policy views of cached nodes, built once per node version. A reconcile of a large pool looks
// at every free node of its flavors; converting thousands of cached nodes to views on every
// round dominated the reconciler's time. A view is a pure function of the cached object, and
// the cache replaces an object on every change, so a view stays valid while its source object
// is the one the cache holds.

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "operator/kube/objects.hpp"
#include "reconcilers/policy/node_view.hpp"

namespace respool::reconcilers {

class NodeViewCache {
 public:
  using NodePtr = std::shared_ptr<const kube::Node>;
  using ViewPtr = std::shared_ptr<const policy::NodeView>;

  // The view of `node`, built now if this version of it was not seen before.
  ViewPtr view(const NodePtr& node);
  std::size_t size() const;

 private:
  struct Entry {
    std::weak_ptr<const kube::Node> source;
    ViewPtr view;
  };
  void sweep_locked();

  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  std::size_t built_since_sweep_ = 0;
  std::size_t kept_at_sweep_ = 0;
};

}  // namespace respool::reconcilers
