// The conversions between the versions a kind is served in and the one stored: events.k8s.io/v1
// Events stored as core/v1, autoscaling/v1 HorizontalPodAutoscalers stored as autoscaling/v2.

#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox::kinds {
namespace {

// core/v1 field <-> events.k8s.io/v1 field, for the fields whose names differ.
const std::pair<const char*, const char*> kEventRenames[] = {
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
    {"reportingComponent", "reportingController"},
};

Json rename(const Json& in, bool to_v1) {
  Json out = Json::object();
  for (auto it = in.begin(); it != in.end(); ++it) {
    std::string key = it.key();
    for (const auto& [core, v1] : kEventRenames) {
      if (to_v1 && key == core) {
        key = v1;
        break;
      }
      if (!to_v1 && key == v1) {
        key = core;
        break;
      }
    }
    out[key] = it.value();
  }
  return out;
}

}  // namespace

Json event_to_v1(const Json& core) {
  Json out = rename(core, true);
  out["apiVersion"] = "events.k8s.io/v1";
  out["kind"] = "Event";
  if (out.contains("deprecatedSource") && out["deprecatedSource"].is_object() &&
      out["deprecatedSource"].empty()) {
    out.erase("deprecatedSource");
  }
  for (const char* k : {"deprecatedFirstTimestamp", "deprecatedLastTimestamp", "eventTime"}) {
    if (!out.contains(k)) out[k] = nullptr;
  }
  return out;
}

Json event_from_v1(const Json& v1) {
  Json out = rename(v1, false);
  out["apiVersion"] = "v1";
  out["kind"] = "Event";
  return out;
}

namespace {

// The average CPU utilization of a metrics list (target or current), if it has one.
const Json* hpa_cpu_utilization(const Json& metrics, const char* which) {
  if (!metrics.is_array()) return nullptr;
  for (const Json& m : metrics) {
    const Json* name = find_field(m, {"resource", "name"});
    if (!m.is_object() || m.value("type", std::string()) != "Resource" || !name || *name != "cpu")
      continue;
    if (const Json* u = find_field(m, {"resource", which, "averageUtilization"})) return u;
  }
  return nullptr;
}

// autoscaling/v1 HorizontalPodAutoscaler <-> autoscaling/v2 (the stored version).
Json hpa_to_v2(const Json& v1) {
  Json out = v1;
  out["apiVersion"] = "autoscaling/v2";
  if (out.contains("spec") && out["spec"].is_object()) {
    Json& spec = out["spec"];
    if (spec.contains("targetCPUUtilizationPercentage")) {
      spec["metrics"] =
          Json::array({hpa_cpu_metric("target", spec["targetCPUUtilizationPercentage"], true)});
      spec.erase("targetCPUUtilizationPercentage");
    }
  }
  if (out.contains("status") && out["status"].is_object()) {
    Json& status = out["status"];
    if (status.contains("currentCPUUtilizationPercentage")) {
      status["currentMetrics"] = Json::array(
          {hpa_cpu_metric("current", status["currentCPUUtilizationPercentage"], false)});
      status.erase("currentCPUUtilizationPercentage");
    }
  }
  return out;
}

Json hpa_to_v1(const Json& v2) {
  Json out = v2;
  out["apiVersion"] = "autoscaling/v1";
  if (out.contains("spec") && out["spec"].is_object()) {
    Json& spec = out["spec"];
    if (spec.contains("metrics")) {
      if (const Json* u = hpa_cpu_utilization(spec["metrics"], "target")) {
        spec["targetCPUUtilizationPercentage"] = Json(*u);
      }
    }
    spec.erase("metrics");
    spec.erase("behavior");
  }
  if (out.contains("status") && out["status"].is_object()) {
    Json& status = out["status"];
    if (status.contains("currentMetrics")) {
      if (const Json* u = hpa_cpu_utilization(status["currentMetrics"], "current")) {
        status["currentCPUUtilizationPercentage"] = Json(*u);
      }
    }
    status.erase("currentMetrics");
    status.erase("conditions");
  }
  return out;
}

}  // namespace

Json to_storage(const ResourceType& type, const Json& obj) {
  if (type.id == KindId::EventV1) return event_from_v1(obj);
  if (type.id == KindId::HorizontalPodAutoscalerV1) return hpa_to_v2(obj);
  return obj;
}

Json from_storage(const ResourceType& type, const Json& stored) {
  if (type.id == KindId::EventV1) return event_to_v1(stored);
  if (type.id == KindId::HorizontalPodAutoscalerV1) return hpa_to_v1(stored);
  return stored;
}

}  // namespace respool::sandbox::kinds
