// The HorizontalPodAutoscaler controller's decisions in a cluster without metrics, without a
// server.

#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/hpa_plan.hpp"

using namespace respool::sandbox::sim;
using Json = nlohmann::json;
using respool::apimachinery::format_time;
using respool::apimachinery::parse_time;

namespace {

const auto kNow = *parse_time("2026-01-05T10:07:30Z");
const auto kEarlier = *parse_time("2026-01-05T10:00:00Z");

Json make_hpa(int min_replicas, int max_replicas) {
  Json h = Json::parse(R"({
    "metadata": {"name": "web", "namespace": "team-a", "generation": 1},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
             "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                          "target": {"type": "Utilization", "averageUtilization": 80}}}]}})");
  h["spec"]["minReplicas"] = min_replicas;
  h["spec"]["maxReplicas"] = max_replicas;
  return h;
}

HpaTarget deployment_with(int replicas) {
  return {replicas, "app=web", ""};
}

const Json* condition(const Json& status, const std::string& type) {
  for (const Json& c : status["conditions"])
    if (c["type"] == type) return &c;
  return nullptr;
}

const char* const kCpuFailure =
    "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch "
    "metrics from resource metrics API: the server could not find the requested resource (get "
    "pods.metrics.k8s.io)";

}  // namespace

TEST_CASE("an HPA scales its target into [minReplicas, maxReplicas]", "[simulator][hpa]") {
  HpaPlan below = plan_hpa(make_hpa(3, 5), deployment_with(1), kNow);
  REQUIRE(below.scale_to == 3);
  REQUIRE(below.events.size() == 1);
  CHECK(below.events[0].type == "Normal");
  CHECK(below.events[0].reason == "SuccessfulRescale");
  CHECK(below.events[0].message ==
        "New size: 3; reason: Current number of replicas below Spec.MinReplicas");
  CHECK(below.status["currentReplicas"] == 1);
  CHECK(below.status["desiredReplicas"] == 3);
  CHECK(below.status["lastScaleTime"] == format_time(kNow));
  CHECK_FALSE(below.status.contains("currentMetrics"));
  const Json* able = condition(below.status, "AbleToScale");
  REQUIRE(able);
  CHECK((*able)["status"] == "True");
  CHECK((*able)["reason"] == "SucceededRescale");
  CHECK((*able)["message"] == "the HPA controller was able to update the target scale to 3");
  CHECK((*able)["lastTransitionTime"] == format_time(kNow));
  CHECK_FALSE(able->contains("lastProbeTime"));
  CHECK_FALSE(condition(below.status, "ScalingActive"));

  HpaPlan above = plan_hpa(make_hpa(1, 4), deployment_with(9), kNow);
  REQUIRE(above.scale_to == 4);
  CHECK(above.events[0].message ==
        "New size: 4; reason: Current number of replicas above Spec.MaxReplicas");

  // minReplicas defaults to 1.
  Json no_min = make_hpa(1, 4);
  no_min["spec"].erase("minReplicas");
  CHECK(plan_hpa(no_min, deployment_with(0), kNow).scale_to == std::nullopt);  // disabled
}

TEST_CASE("an HPA within its bounds reports the missing metrics API and scales nothing",
          "[simulator][hpa]") {
  Json hpa = make_hpa(1, 5);
  hpa["status"] = {{"currentReplicas", 3},
                   {"desiredReplicas", 3},
                   {"lastScaleTime", format_time(kEarlier)},
                   {"conditions",
                    {{{"type", "AbleToScale"},
                      {"status", "True"},
                      {"reason", "SucceededRescale"},
                      {"message", "the HPA controller was able to update the target scale to 3"},
                      {"lastTransitionTime", format_time(kEarlier)}}}}};
  HpaPlan plan = plan_hpa(hpa, deployment_with(2), kNow);
  CHECK_FALSE(plan.scale_to);
  REQUIRE(plan.events.size() == 2);
  CHECK(plan.events[0].type == "Warning");
  CHECK(plan.events[0].reason == "FailedGetResourceMetric");
  CHECK(plan.events[0].message == kCpuFailure);
  CHECK(plan.events[1].reason == "FailedComputeMetricsReplicas");
  CHECK(plan.events[1].message ==
        std::string("invalid metrics (1 invalid out of 1), first error is: failed to get cpu "
                    "resource metric value: ") +
            kCpuFailure);
  // currentReplicas follows the target; the rest of the status stays.
  CHECK(plan.status["currentReplicas"] == 2);
  CHECK(plan.status["desiredReplicas"] == 3);
  CHECK(plan.status["lastScaleTime"] == format_time(kEarlier));
  const Json* able = condition(plan.status, "AbleToScale");
  CHECK((*able)["reason"] == "SucceededGetScale");
  CHECK((*able)["lastTransitionTime"] == format_time(kEarlier));  // still True
  const Json* active = condition(plan.status, "ScalingActive");
  REQUIRE(active);
  CHECK((*active)["status"] == "False");
  CHECK((*active)["reason"] == "FailedGetResourceMetric");
  CHECK((*active)["message"] ==
        std::string("the HPA was unable to compute the replica count: ") + kCpuFailure);

  // Every metric is tried; the condition names the first.
  hpa["spec"]["metrics"].push_back(
      {{"type", "Pods"},
       {"pods",
        {{"metric", {{"name", "rps"}}},
         {"target", {{"type", "AverageValue"}, {"averageValue", "1"}}}}}});
  hpa["spec"]["metrics"][0]["resource"]["name"] = "memory";
  HpaPlan two = plan_hpa(hpa, deployment_with(2), kNow);
  REQUIRE(two.events.size() == 3);
  CHECK(two.events[1].reason == "FailedGetPodsMetric");
  CHECK(two.events[1].message ==
        "unable to get metric rps: unable to fetch metrics from custom metrics API: no custom "
        "metrics API (custom.metrics.k8s.io) registered");
  CHECK(two.events[2].message.starts_with(
      "invalid metrics (2 invalid out of 2), first error is: failed to get memory resource"));
  CHECK((*condition(two.status, "ScalingActive"))["reason"] == "FailedGetResourceMetric");

  // A scale without a selector cannot be measured.
  HpaPlan no_selector = plan_hpa(make_hpa(1, 5), {2, "", ""}, kNow);
  REQUIRE(no_selector.events.size() == 2);
  CHECK(no_selector.events[0].reason == "SelectorRequired");
  CHECK((*condition(no_selector.status, "ScalingActive"))["reason"] == "InvalidSelector");
}

TEST_CASE("an HPA whose target has no scale, or is at zero, or cannot be scaled",
          "[simulator][hpa]") {
  HpaPlan missing =
      plan_hpa(make_hpa(1, 5), {std::nullopt, "", "deployments.apps \"web\" not found"}, kNow);
  CHECK_FALSE(missing.scale_to);
  REQUIRE(missing.events.size() == 1);
  CHECK(missing.events[0].reason == "FailedGetScale");
  const Json* able = condition(missing.status, "AbleToScale");
  CHECK((*able)["status"] == "False");
  CHECK((*able)["message"] ==
        "the HPA controller was unable to get the target's current scale: deployments.apps "
        "\"web\" not found");

  HpaPlan zero = plan_hpa(make_hpa(2, 5), deployment_with(0), kNow);
  CHECK_FALSE(zero.scale_to);
  CHECK(zero.events.empty());
  CHECK((*condition(zero.status, "ScalingActive"))["reason"] == "ScalingDisabled");
  CHECK(zero.status["desiredReplicas"] == 0);

  Json hpa = make_hpa(3, 5);
  HpaPlan plan = plan_hpa(hpa, deployment_with(1), kNow);
  rescale_failed(plan, hpa, 1, "the server is unavailable", kNow);
  CHECK_FALSE(plan.scale_to);
  REQUIRE(plan.events.size() == 1);
  CHECK(plan.events[0].reason == "FailedRescale");
  CHECK(plan.events[0].message ==
        "New size: 3; reason: Current number of replicas below Spec.MinReplicas; error: the "
        "server is unavailable");
  CHECK((*condition(plan.status, "AbleToScale"))["reason"] == "FailedUpdateScale");
  CHECK(plan.status["currentReplicas"] == 1);
  CHECK(plan.status["desiredReplicas"] == 0);
  CHECK_FALSE(plan.status.contains("lastScaleTime"));
}
