#pragma once
// The StatefulSet controller: claims the pods and ControllerRevisions its selector matches,
// carries out statefulset_plan.hpp (revisions, ordered pods and their claims, rolling updates,
// history) and writes the status.

#include <expected>
#include <string>

#include "operator/runtime/controller.hpp"
#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/cluster.hpp"
#include "sandbox/simulator/pending_pods.hpp"
#include "sandbox/simulator/recent_writes.hpp"

namespace respool::sandbox::sim {

class StatefulSetController {
 public:
  StatefulSetController(Cluster& cluster, ObjectInformer& sets, ObjectInformer& revisions,
                        runtime::EventRecorder& events);
  void start() { controller_.start(); }
  void stop() { controller_.stop(); }

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key);
  std::vector<std::string> sets_for(const kube::Unstructured& object) const;
  std::expected<void, std::string> write_revision(const Json& set, const Json& revision,
                                                  bool create);
  std::expected<void, std::string> ensure_claims(const Json& set, int ordinal);

  Cluster& cluster_;
  ObjectInformer& sets_;
  ObjectInformer& revisions_;
  runtime::EventRecorder& events_;
  PendingPods pending_;
  RecentWrites written_;
  runtime::Controller controller_;
};

}  // namespace respool::sandbox::sim
