#include "sandbox/simulator/hpa_plan.hpp"

#include "apimachinery/time.hpp"
#include "sandbox/simulator/conditions.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/workload_util.hpp"

namespace respool::sandbox::sim {

using Json = nlohmann::json;
using TimePoint = std::chrono::system_clock::time_point;

namespace {

constexpr const char* kHpaResourceApiMissing =
    "unable to fetch metrics from resource metrics API: the server could not find the requested "
    "resource (get pods.metrics.k8s.io)";
constexpr const char* kHpaCustomApiMissing =
    "unable to fetch metrics from custom metrics API: no custom metrics API "
    "(custom.metrics.k8s.io) registered";

// How one metric of spec.metrics fails: the event (and ScalingActive) reason, the error the
// event and the condition carry, and the error computeReplicasForMetrics returns.
struct HpaMetricFailure {
  std::string reason;
  std::string error;
  std::string returned;
};

// computeStatusForResourceMetricGeneric's error for a resource (and container) target.
std::string hpa_resource_error(const Json& source) {
  const std::string name = string_at(source, {"name"});
  const Json& target = at_path(source, {"target"});
  const std::string missing =
      "unable to get metrics for resource " + name + ": " + kHpaResourceApiMissing;
  if (target.contains("averageValue")) return "failed to get " + name + " usage: " + missing;
  if (!target.contains("averageUtilization"))
    return "invalid resource metric source: neither an average utilization target nor an "
           "average value (usage) target was set";
  return "failed to get " + name + " utilization: " + missing;
}

HpaMetricFailure hpa_metric_failure(const Json& metric, const std::string& ns) {
  const std::string type = string_at(metric, {"type"});
  if (type == "Resource") {
    const Json& source = at_path(metric, {"resource"});
    std::string error = hpa_resource_error(source);
    return {"FailedGetResourceMetric", error,
            "failed to get " + string_at(source, {"name"}) + " resource metric value: " + error};
  }
  if (type == "ContainerResource") {
    const Json& source = at_path(metric, {"containerResource"});
    std::string error = hpa_resource_error(source);
    return {
        "FailedGetContainerResourceMetric", error,
        "failed to get " + string_at(source, {"container"}) + " container metric value: " + error};
  }
  if (type == "Pods") {
    std::string error = "unable to get metric " + string_at(metric, {"pods", "metric", "name"}) +
                        ": " + kHpaCustomApiMissing;
    return {"FailedGetPodsMetric", error, "failed to get pods metric value: " + error};
  }
  if (type == "Object") {
    const Json& object = at_path(metric, {"object"});
    std::string error = "unable to get metric " + string_at(object, {"metric", "name"}) + ": " +
                        string_at(object, {"describedObject", "kind"}) + " on " + ns + " " +
                        string_at(object, {"describedObject", "name"}) + "/" + kHpaCustomApiMissing;
    return {"FailedGetObjectMetric", error, "failed to get object metric value: " + error};
  }
  if (type == "External") {
    const std::string name = string_at(metric, {"external", "metric", "name"});
    std::string error = "unable to get external metric " + ns + "/" + name +
                        ": unable to fetch metrics from external metrics API: the server could "
                        "not find the requested resource (get " +
                        name + ".external.metrics.k8s.io)";
    return {"FailedGetExternalMetric", error,
            "failed to get " + name + " external metric value: " + error};
  }
  std::string error = "unknown metric source type \"" + type + "\"";
  return {"InvalidMetricSourceType", error, error};
}

void hpa_condition(Json& hpa, const char* type, const char* status, const std::string& reason,
                   const std::string& message, TimePoint now) {
  set_condition(hpa, {type, status, reason, message}, now, ConditionStyle::Bare);
}

// setStatus: the status recreated from its parts (conditions as set so far).
Json hpa_status(const Json& working, std::int64_t current, std::int64_t desired,
                const Json& metrics, std::optional<TimePoint> scaled_at) {
  const Json& before = at_path(working, {"status"});
  Json status = {{"currentReplicas", current}, {"desiredReplicas", desired}};
  if (scaled_at) {
    status["lastScaleTime"] = apimachinery::format_time(*scaled_at);
  } else if (before.contains("lastScaleTime")) {
    status["lastScaleTime"] = before["lastScaleTime"];
  }
  if (metrics.is_array() && !metrics.empty()) status["currentMetrics"] = metrics;
  status["conditions"] = at_path(before, {"conditions"});
  return status;
}

}  // namespace

HpaPlan plan_hpa(const Json& hpa, const HpaTarget& target, TimePoint now) {
  HpaPlan plan;
  Json working = {{"status", hpa.contains("status") && hpa["status"].is_object() ? hpa["status"]
                                                                                 : Json::object()}};
  auto warn = [&](const std::string& reason, const std::string& message) {
    plan.events.push_back({"Warning", reason, message});
  };
  if (!target.replicas) {
    warn("FailedGetScale", target.error);
    hpa_condition(
        working, "AbleToScale", "False", "FailedGetScale",
        "the HPA controller was unable to get the target's current scale: " + target.error, now);
    plan.status = working["status"];
    return plan;
  }
  hpa_condition(working, "AbleToScale", "True", "SucceededGetScale",
                "the HPA controller was able to get the target's current scale", now);
  const std::int64_t current = *target.replicas;
  const std::int64_t min_replicas = int_at(hpa, {"spec", "minReplicas"}, 1);
  const std::int64_t max_replicas = int_at(hpa, {"spec", "maxReplicas"}, 0);
  const Json& previous = working["status"];
  std::int64_t desired = 0;
  if (current == 0 && min_replicas != 0) {
    hpa_condition(working, "ScalingActive", "False", "ScalingDisabled",
                  "scaling is disabled since the replica count of the target is zero", now);
    plan.status = hpa_status(working, current, current, nullptr, std::nullopt);
    return plan;
  }
  if (current > max_replicas) {
    plan.rescale_reason = "Current number of replicas above Spec.MaxReplicas";
    desired = max_replicas;
  } else if (current < min_replicas) {
    plan.rescale_reason = "Current number of replicas below Spec.MinReplicas";
    desired = min_replicas;
  } else {
    // No metrics API answers: every metric fails (computeReplicasForMetrics).
    std::string failed;
    if (target.selector.empty()) {
      warn("SelectorRequired", "selector is required");
      hpa_condition(working, "ScalingActive", "False", "InvalidSelector",
                    "the HPA target's scale is missing a selector", now);
      failed = "selector is required";
    } else {
      Json metrics = at_path(hpa, {"spec", "metrics"});
      if (!metrics.is_array() || metrics.empty())  // the API server's default
        metrics =
            Json::array({{{"type", "Resource"},
                          {"resource",
                           {{"name", "cpu"},
                            {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
      std::optional<HpaMetricFailure> first;
      for (const Json& metric : metrics) {
        HpaMetricFailure failure = hpa_metric_failure(metric, namespace_of(hpa));
        warn(failure.reason, failure.error);
        if (!first) first = std::move(failure);
      }
      hpa_condition(working, "ScalingActive", "False", first->reason,
                    "the HPA was unable to compute the replica count: " + first->error, now);
      const std::string count = std::to_string(metrics.size());
      failed = "invalid metrics (" + count + " invalid out of " + count +
               "), first error is: " + first->returned;
    }
    plan.status = hpa_status(working, current, int_at(previous, {"desiredReplicas"}, 0),
                             at_path(previous, {"currentMetrics"}), std::nullopt);
    warn("FailedComputeMetricsReplicas", failed);
    return plan;
  }
  plan.scale_to = static_cast<int>(desired);
  hpa_condition(
      working, "AbleToScale", "True", "SucceededRescale",
      "the HPA controller was able to update the target scale to " + std::to_string(desired), now);
  plan.events.push_back(
      {"Normal", "SuccessfulRescale",
       "New size: " + std::to_string(desired) + "; reason: " + plan.rescale_reason});
  plan.status = hpa_status(working, current, desired, nullptr, now);
  return plan;
}

void rescale_failed(HpaPlan& plan, const Json& hpa, int current_replicas, const std::string& error,
                    TimePoint now) {
  const int desired = plan.scale_to.value_or(current_replicas);
  plan.events = {{"Warning", "FailedRescale",
                  "New size: " + std::to_string(desired) + "; reason: " + plan.rescale_reason +
                      "; error: " + error}};
  Json working = {{"status", plan.status}};
  hpa_condition(working, "AbleToScale", "False", "FailedUpdateScale",
                "the HPA controller was unable to update the target scale: " + error, now);
  const Json& before = at_path(hpa, {"status"});
  Json status = working["status"];
  status["desiredReplicas"] = int_at(before, {"desiredReplicas"}, 0);
  if (before.contains("lastScaleTime")) {
    status["lastScaleTime"] = before["lastScaleTime"];
  } else {
    status.erase("lastScaleTime");
  }
  if (at_path(before, {"currentMetrics"}).is_array())
    status["currentMetrics"] = before["currentMetrics"];
  plan.status = std::move(status);
  plan.scale_to.reset();
}

}  // namespace respool::sandbox::sim
