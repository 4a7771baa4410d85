#pragma once
// The Network controller (W1–W5): the block in force, conflicts with every other network and
// interconnect, the 15-network limit, the pools that use it, and the finalizer that keeps a
// network while a pool uses it. Every network's verdict depends on the others, so any network
// event requeues them all (there are at most a handful).
//   observe  the network, every network's view, the pools that name it
//   decide   policy::decide_networks (W1–W4), policy::network_deletion (W5),
//            policy::network_status
//   act      the finalizer (added; removed once no pool uses a deleted network)
//   report   status (only when it changed), Ready events, InUse events, audit lines (A1,
//            written ahead of the write that acknowledges the change)

#include <optional>
#include <string>
#include <vector>

#include "operator/runtime/controller.hpp"
#include "reconcilers/audit_ahead.hpp"
#include "reconcilers/context.hpp"
#include "reconcilers/policy/network.hpp"

namespace respool::reconcilers {

class NetworkReconciler {
 public:
  explicit NetworkReconciler(Context& context) : ctx_(context) {}
  Outcome<runtime::ReconcileResult> reconcile(const std::string& name);

 private:
  struct Observation {
    std::shared_ptr<const kube::Unstructured> network;
    std::vector<policy::NetworkView> views;  // every network, by name
    std::vector<std::string> used_by;        // the pools that name it
    runtime::TimePoint now;
  };
  struct Decision {
    policy::NetworkView view;
    policy::NetworkVerdict verdict;
  };

  Observation observe(std::shared_ptr<const kube::Unstructured> network) const;
  std::optional<Decision> decide(const Observation& o) const;
  // A deleted network: nullopt while pools still use it (its status says which); else the
  // round's end, once its finalizer is removed and the release audited.
  std::optional<Outcome<runtime::ReconcileResult>> release(const Observation& o);
  Outcome<runtime::ReconcileResult> report(const Observation& o, const Decision& d);
  void report_change(const Observation& o, const std::vector<policy::Condition>& previous,
                     const policy::NetworkStatus& status);
  void audit_spec_change(const Observation& o, const Decision& d);

  Context& ctx_;
  AuditAhead audit_;  // A1's network records, each written ahead of the write acknowledging it
};

}  // namespace respool::reconcilers
