// What a built-in kind's row says about its objects (defaults, the pod template, the status a
// create starts from), and the conversions between the versions a kind is served in.

#include "sandbox/apiserver/strategies/kinds.hpp"

namespace respool::sandbox::kinds {
namespace {

// Fills in what `defaults` has and `obj` lacks. An object default descends into obj's object
// (created when missing); a key "[]" applies its defaults to each element of obj's array; a key
// "?name" descends only when obj already has `name`.
void fill_defaults(Json& obj, const Json& defaults) {
  if (!obj.is_object() || !defaults.is_object()) return;
  for (auto it = defaults.begin(); it != defaults.end(); ++it) {
    std::string key = it.key();
    bool only_present = !key.empty() && key[0] == '?';
    if (only_present) key.erase(0, 1);
    const Json& d = it.value();
    if (only_present && (!obj.contains(key) || !obj[key].is_object())) continue;
    if (d.is_object() && d.contains("[]")) {
      if (obj.contains(key) && obj[key].is_array()) {
        for (Json& element : obj[key])
          fill_defaults(element, d["[]"]);
      }
      continue;
    }
    if (d.is_object() && !d.empty()) {
      if (!obj.contains(key) || obj[key].is_null()) obj[key] = Json::object();
      fill_defaults(obj[key], d);
      continue;
    }
    if (!obj.contains(key)) obj[key] = d;
  }
}

Json* dotted_path(Json& obj, const std::string& dotted) {
  Json* v = &obj;
  std::size_t i = 0;
  while (i < dotted.size()) {
    std::size_t dot = dotted.find('.', i);
    std::string key = dotted.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
    if (!v->is_object() || !v->contains(key)) return nullptr;
    v = &(*v)[key];
    if (dot == std::string::npos) break;
    i = dot + 1;
  }
  return v;
}

const Json* find_field(const Json& obj, std::initializer_list<const char*> path) {
  const Json* v = &obj;
  for (const char* k : path) {
    if (!v->is_object() || !v->contains(k)) return nullptr;
    v = &(*v)[k];
  }
  return v;
}

Json hpa_cpu_metric(const char* field, const Json& value, bool target) {
  Json m = {{"name", "cpu"}};
  if (target) {
    m["target"] = {{"type", "Utilization"}, {"averageUtilization", value}};
  } else {
    m["current"] = {{"averageUtilization", value}};
  }
  (void)field;
  return {{"type", "Resource"}, {"resource", m}};
}

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

void default_netpol(Json& obj) {
  Json* spec = dotted_path(obj, "spec");
  if (!spec || !spec->is_object() || spec->contains("policyTypes")) return;
  Json types = Json::array({"Ingress"});
  if (spec->contains("egress") && (*spec)["egress"].is_array()) types.push_back("Egress");
  (*spec)["policyTypes"] = types;
}

// A ReplicationController without selector or labels takes its template's labels.
void default_rc(Json& obj) {
  const Json* labels = find_field(obj, {"spec", "template", "metadata", "labels"});
  if (!labels || !labels->is_object() || labels->empty()) return;
  Json& spec = obj["spec"];
  if (!spec.contains("selector") || !spec["selector"].is_object() || spec["selector"].empty()) {
    spec["selector"] = *labels;
  }
  Json& meta = obj["metadata"];
  if (!meta.contains("labels") || !meta["labels"].is_object() || meta["labels"].empty()) {
    meta["labels"] = *labels;
  }
}

void default_hpa_metrics(Json& obj) {
  Json* spec = dotted_path(obj, "spec");
  if (!spec || !spec->is_object()) return;
  if (!spec->contains("metrics") || !(*spec)["metrics"].is_array() || (*spec)["metrics"].empty()) {
    (*spec)["metrics"] = Json::array({hpa_cpu_metric("target", 80, true)});
  }
}

}  // namespace

void apply_defaults(const ResourceType& type, Json& obj) {
  if (type.custom()) return;
  if (!type.defaults.is_null()) fill_defaults(obj, type.defaults);
  if (type.template_parent) {
    Json* parent = type.template_parent->empty() ? &obj : dotted_path(obj, *type.template_parent);
    if (parent) default_pod_template(*parent);
  }
  switch (type.id) {
    case KindId::NetworkPolicy:
      default_netpol(obj);
      break;
    case KindId::ReplicationController:
      default_rc(obj);
      break;
    case KindId::HorizontalPodAutoscaler:
    case KindId::HorizontalPodAutoscalerV1:
      default_hpa_metrics(obj);
      break;
    default:
      break;
  }
}

void start_status(const ResourceType& type, Json& obj) {
  if (type.status_subresource && !type.create_status.is_null()) obj["status"] = type.create_status;
}

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
