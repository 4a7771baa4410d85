#pragma once
// The HorizontalPodAutoscaler controller's decisions (pkg/controller/podautoscaler,
// reconcileAutoscaler), pure, in a cluster that serves no metrics API: no metrics-server
// (metrics.k8s.io), no custom or external metrics adapter. So, as on a fresh kubeadm cluster:
// - the target's scale is read (FailedGetScale when it cannot be: AbleToScale False);
// - a target scaled to 0 is left alone (ScalingActive False, ScalingDisabled);
// - a target above maxReplicas or below minReplicas (default 1) is scaled to the bound
//   (SuccessfulRescale "New size: N; reason: Current number of replicas below
//   Spec.MinReplicas", AbleToScale True SucceededRescale, lastScaleTime);
// - otherwise every metric fails as the real controller reports it (FailedGetResourceMetric and
//   FailedComputeMetricsReplicas events, ScalingActive False with the reason of the first
//   metric), status.currentReplicas follows the target and nothing is scaled.
// The wording of resource and container-resource metric failures is the real one; that of
// pods, object and external metrics follows the real structure with the metrics client's
// "no API registered" answers.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/simulator/deployment_plan.hpp"

namespace respool::sandbox::sim {

// What the scale subresource of spec.scaleTargetRef answered.
struct HpaTarget {
  std::optional<int> replicas;  // Scale spec.replicas; nullopt when `error` says why not
  std::string selector;         // Scale status.selector
  std::string error;
};

struct HpaPlan {
  nlohmann::json status;        // the HPA's status as it should read
  std::optional<int> scale_to;  // write the target's scale
  std::string rescale_reason;
  std::vector<ControllerEvent> events;
};

HpaPlan plan_hpa(const nlohmann::json& hpa, const HpaTarget& target,
                 std::chrono::system_clock::time_point now);

// The plan once writing the target's scale failed with `error`: FailedRescale, AbleToScale False
// FailedUpdateScale, and only status.currentReplicas updated.
void rescale_failed(HpaPlan& plan, const nlohmann::json& hpa, int current_replicas,
                    const std::string& error, std::chrono::system_clock::time_point now);

}  // namespace respool::sandbox::sim
