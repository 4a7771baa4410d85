// Jobs as pkg/apis/batch/validation (v1.32) validates them: counts, completion mode, pod
// replacement policy, the pod template (restartPolicy OnFailure or Never), the selector, and
// what an update may not change (completions, selector, completion mode, the template unless
// suspended before it started); pod failure and success policies in kinds_rules_job_policies.cpp.

#include "sandbox/apiserver/validation/job.hpp"
#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/validation/rules.hpp"

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

// validateJobSpec's counts and modes, on the spec as the Job's defaults leave it.
void job_count_rules(const Json& spec, std::vector<Cause>& out) {
  for (const char* key : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                          "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"}) {
    non_negative(spec, key, "spec", out);
  }
  const Json& per_index = at(spec, {"backoffLimitPerIndex"});
  const Json& max_failed = at(spec, {"maxFailedIndexes"});
  if (!max_failed.is_null() && per_index.is_null()) {
    out.push_back(
        field_required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"));
  }
  const Json& mode = at(spec, {"completionMode"});
  const bool indexed = mode == "Indexed";
  if (mode.is_string() && mode != "NonIndexed" && !indexed) {
    out.push_back(field_not_supported("spec.completionMode", mode, {"NonIndexed", "Indexed"}));
  }
  if (indexed) {
    const Json& completions = at(spec, {"completions"});
    const Json& parallelism = at(spec, {"parallelism"});
    if (completions.is_null()) {
      out.push_back(field_required("spec.completions", "when completion mode is Indexed"));
    }
    if (parallelism.is_number_integer() && parallelism.get<long long>() > 100000) {
      out.push_back(field_invalid("spec.parallelism", parallelism,
                                  "must be less than or equal to 100000 when completion mode is "
                                  "Indexed"));
    }
    if (completions.is_number_integer() && max_failed.is_number_integer() &&
        max_failed.get<long long>() > completions.get<long long>()) {
      out.push_back(field_invalid("spec.maxFailedIndexes", max_failed,
                                  "must be less than or equal to completions"));
    }
  } else {
    if (!per_index.is_null()) {
      out.push_back(field_invalid("spec.backoffLimitPerIndex", per_index,
                                  "requires indexed completion mode"));
    }
    if (!max_failed.is_null()) {
      out.push_back(
          field_invalid("spec.maxFailedIndexes", max_failed, "requires indexed completion mode"));
    }
  }
}

void job_template_rules(const Json& spec, std::vector<Cause>& out) {
  job_policy_rules(spec, out);
  const bool failure_policy = !at(spec, {"podFailurePolicy"}).is_null();
  const Json& replacement = at(spec, {"podReplacementPolicy"});
  if (failure_policy && replacement.is_string() && replacement != "Failed") {
    out.push_back(field_not_supported("spec.podReplacementPolicy", replacement, {"Failed"}));
  } else if (replacement.is_string() && replacement != "TerminatingOrFailed" &&
             replacement != "Failed") {
    out.push_back(field_not_supported("spec.podReplacementPolicy", replacement,
                                      {"Failed", "TerminatingOrFailed"}));
  }
  pod_template_rules(at(spec, {"template"}), "spec.template", out);
  // restartPolicy defaults to Always, which a Job may not have: both read as "missing".
  const Json& policy = at(spec, {"template", "spec", "restartPolicy"});
  if (policy.is_null() || policy == "Always" || policy == "") {
    out.push_back(field_required("spec.template.spec.restartPolicy",
                                 "valid values: \"OnFailure\", \"Never\""));
  } else if (policy != "OnFailure" && policy != "Never") {
    out.push_back(
        field_not_supported("spec.template.spec.restartPolicy", policy, {"OnFailure", "Never"}));
  } else if (failure_policy && policy != "Never") {
    out.push_back(field_invalid("spec.template.spec.restartPolicy", policy,
                                "only \"Never\" is supported when podFailurePolicy is specified"));
  }
}

void job_selector_rules(const Json& spec, std::vector<Cause>& out) {
  const Json& selector = at(spec, {"selector"});
  bool converts = true;
  if (selector.is_null()) {
    out.push_back(field_required("spec.selector"));
  } else {
    converts = label_selector_rules(selector, "spec.selector", out);
  }
  if (!converts) return;
  const Json& labels = at(spec, {"template", "metadata", "labels"});
  bool matches = false;
  if (selector.is_object()) {
    auto parsed = kube::LabelSelector::from_json(selector);
    matches = parsed &&
              (parsed->empty() || parsed->matches(labels.is_object() ? labels : Json::object()));
  }
  if (!matches) {
    out.push_back(field_invalid_raw("spec.template.metadata.labels", go_string_map(labels),
                                    "`selector` does not match template `labels`"));
  }
}

// %v of a *int32 field.Invalid dereferences, "null" when unset.
Json shown_count(const Json& v) {
  return v.is_number_integer() ? v : Json();
}

}  // namespace

void validate_job(const Json& job, const Json* old, std::vector<Cause>& out) {
  const Json& spec = at(job, {"spec"});
  job_count_rules(spec, out);
  job_template_rules(spec, out);
  job_selector_rules(spec, out);
  if (!old) {
    // The highest index becomes a pod's hostname: "<name>-<completions-1>" must be a DNS label.
    const Json& completions = at(spec, {"completions"});
    if (at(spec, {"completionMode"}) == "Indexed" && completions.is_number_integer() &&
        completions.get<long long>() > 0) {
      const std::string name = text_of(at(job, {"metadata"}), "name");
      const std::string host = name + "-" + std::to_string(completions.get<long long>() - 1);
      if (check_dns_label(host)) {
        out.push_back(field_invalid("metadata.name", name,
                                    "will not able to create pod with invalid DNS label: " + host));
      }
    }
    return;
  }
  const Json& before = at(*old, {"spec"});
  const Json& completions = at(spec, {"completions"});
  if (completions != at(before, {"completions"})) {
    const bool indexed = at(spec, {"completionMode"}) == "Indexed";
    if (!indexed) {
      out.push_back(
          field_invalid("spec.completions", shown_count(completions), "field is immutable"));
    } else if (!completions.is_null() && completions != at(spec, {"parallelism"})) {
      out.push_back(field_invalid("spec.completions", completions,
                                  "can only be modified in tandem with spec.parallelism"));
    }
  }
  const Json& selector = at(spec, {"selector"});
  if (selector != at(before, {"selector"})) {
    out.push_back(
        field_invalid_raw("spec.selector", go_label_selector(selector), "field is immutable"));
  }
  validate_job_template_update(job, *old, out);
  const Json& mode = at(spec, {"completionMode"});
  if (mode != at(before, {"completionMode"})) {
    out.push_back(field_invalid("spec.completionMode", mode, "field is immutable"));
  }
  const Json& per_index = at(spec, {"backoffLimitPerIndex"});
  if (per_index != at(before, {"backoffLimitPerIndex"})) {
    out.push_back(
        field_invalid("spec.backoffLimitPerIndex", shown_count(per_index), "field is immutable"));
  }
}

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
