// What a built-in kind's row says about its objects: defaults, the pod template, the status a
// create starts from.

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

}  // namespace respool::sandbox::kinds
