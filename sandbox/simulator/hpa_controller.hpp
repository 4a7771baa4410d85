#pragma once
// The HorizontalPodAutoscaler controller: carries out hpa_plan.hpp for each HPA every 15
// simulated seconds (kube-controller-manager's --horizontal-pod-autoscaler-sync-period) and when
// its spec changes, through the scale subresource of its target (any kind the API serves with one).

#include <expected>
#include <map>
#include <string>

#include "operator/runtime/event_recorder.hpp"
#include "sandbox/simulator/hpa_plan.hpp"
#include "sandbox/simulator/sim_controller.hpp"

namespace respool::sandbox::sim {

class HpaController : public SimController {
 public:
  HpaController(Cluster& cluster, ObjectInformer& hpas, runtime::EventRecorder& events);

 private:
  std::expected<runtime::ReconcileResult, std::string> reconcile(const std::string& key) override;
  // The target's Scale (kept whole, to write it back), or why there is none.
  HpaTarget read_target(const nlohmann::json& hpa, nlohmann::json& scale, std::string& scale_path);

  ObjectInformer& hpas_;
  runtime::EventRecorder& events_;
  // key -> (generation, time) of the last sync: as the real work queue adds every HPA rate
  // limited by the sync period, a change of the HPA's status (ours) brings no early sync; a new
  // spec does.
  std::map<std::string, std::pair<std::int64_t, runtime::TimePoint>> synced_;
};

}  // namespace respool::sandbox::sim
