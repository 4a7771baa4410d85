#pragma once
// The StatefulSet controller: claims the pods and ControllerRevisions its selector matches,
// carries out statefulset_plan.hpp (revisions, ordered pods and their claims, rolling updates,
// history) and writes the status.

#include <expected>
#include <string>

#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/pending_pods.hpp"
#include "sandbox/simulator/recent_writes.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class StatefulSetController : public SimController {
 public:
  StatefulSetController(Cluster& cluster, ObjectInformer& sets, ObjectInformer& revisions,
                        runtime::EventRecorder& events);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  std::vector<std::string> sets_for(const kube::Unstructured& object) const;
  std::expected<void, std::string> write_revision(const Json& set, const Json& revision,
                                                  bool create);
  std::expected<void, std::string> ensure_claims(const Json& set, int ordinal);

  ObjectInformer& sets_;
  ObjectInformer& revisions_;
  runtime::EventRecorder& events_;
  PendingPods pending_;
  RecentWrites written_;
};

}  // namespace respool::sandbox::sim
