#pragma once
// The Network controller (W1–W5): the block in force, conflicts with every other network and
// interconnect, the 15-network limit, the pools that use it, and the finalizer that keeps a
// network while a pool uses it. Every network's verdict depends on the others, so any network
// event requeues them all (there are at most a handful).

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "reconcilers/context.hpp"

namespace respool::reconcilers {

class NetworkReconciler {
 public:
  explicit NetworkReconciler(Context& context) : ctx_(context) {}
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& name);

 private:
  Context& ctx_;
};

}  // namespace respool::reconcilers
