#include "sandbox/apiserver/kinds_rules_job.hpp"

namespace respool::sandbox::kinds {
namespace {

const Json& at(const Json& object, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* at = &object;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return kNull;
    at = &(*at)[key];
  }
  return *at;
}

// Sets object[key] to value, or removes the key when value is null.
void assign(Json& object, const char* key, const Json& value) {
  if (!object.is_object()) object = Json::object();
  if (value.is_null()) {
    object.erase(key);
  } else {
    object[key] = value;
  }
}

}  // namespace

void validate_job_template_update(const Json& job, const Json& old, std::vector<Cause>& out) {
  const Json& tmpl = at(job, {"spec", "template"});
  Json before = at(old, {"spec", "template"});
  if (tmpl == before) return;
  const Json& suspend = at(old, {"spec", "suspend"});
  const bool suspended = suspend.is_boolean() && suspend.get<bool>();
  if (suspended && at(old, {"status", "startTime"}).is_null() && before.is_object() &&
      tmpl.is_object()) {
    // What may change is taken from the new template; anything else must be as it was.
    Json& meta = before["metadata"];
    assign(meta, "labels", at(tmpl, {"metadata", "labels"}));
    assign(meta, "annotations", at(tmpl, {"metadata", "annotations"}));
    if (meta.empty()) before.erase("metadata");
    Json& spec = before["spec"];
    for (const char* key : {"nodeSelector", "tolerations", "schedulingGates"})
      assign(spec, key, at(tmpl, {"spec", key}));
    const Json& affinity = at(tmpl, {"spec", "affinity"});
    if (!affinity.is_null()) {
      Json& was = spec["affinity"];
      if (!was.is_object()) was = Json::object();
      assign(was, "nodeAffinity", at(affinity, {"nodeAffinity"}));
    } else if (spec.contains("affinity") && spec["affinity"].is_object()) {
      spec["affinity"].erase("nodeAffinity");
      if (spec["affinity"].empty()) spec.erase("affinity");
    }
    if (before == tmpl) return;
  }
  out.push_back(field_invalid("spec.template", tmpl, "field is immutable"));
}

}  // namespace respool::sandbox::kinds
