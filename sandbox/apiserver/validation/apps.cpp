// Deployments, ReplicaSets, StatefulSets and DaemonSets as pkg/apis/apps/validation (v1.32) and
// their registry strategies validate them: selectors (ValidateLabelSelector, the template's labels
// matching, empty selectors), the pod template, strategies, counts, and what an update may not
// change. Field paths, values (Go's %#v where the real server prints it) and wording are the
// real server's.

#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {
namespace {

const Json& template_labels(const Json& spec) {
  return member_or_null(member_or_null(member_or_null(spec, "template"), "metadata"), "labels");
}

// `selector` does not match template `labels`, when the selector converts and does not match.
// A missing selector converts to labels.Nothing(), which matches nothing.
void match_rule(const Json& selector, const Json& spec, std::vector<Cause>& out) {
  const Json& labels = template_labels(spec);
  bool matches = false;
  if (selector.is_object()) {
    auto parsed = kube::LabelSelector::from_json(selector);
    matches = parsed && (parsed->empty() || parsed->matches(object_or_empty(labels)));
  }
  if (!matches) {
    out.push_back(field_invalid_raw("spec.template.metadata.labels", go_string_map(labels),
                                    "`selector` does not match template `labels`"));
  }
}

bool empty_selector(const Json& selector) {
  return object_or_empty(member_or_null(selector, "matchLabels")).empty() &&
         (!member_or_null(selector, "matchExpressions").is_array() ||
          member_or_null(selector, "matchExpressions").empty());
}

// The selector rules every workload shares: Required when missing, ValidateLabelSelector, the
// empty selector ("empty selector is invalid for <word>"). True when the selector converts.
bool selector_rules(const Json& selector, const char* word, std::vector<Cause>& out) {
  if (selector.is_null()) {
    out.push_back(field_required("spec.selector"));
    return true;  // LabelSelectorAsSelector(nil) is labels.Nothing(), no error
  }
  bool converts = label_selector_rules(selector, "spec.selector", out);
  if (empty_selector(selector)) {
    out.push_back(field_invalid_raw("spec.selector", go_label_selector(selector),
                                    std::string("empty selector is invalid for ") + word));
  }
  return converts;
}

// ValidatePodTemplateSpecForReplicaSet, for Deployments and ReplicaSets.
void replica_set_template_rules(const Json& spec, const char* kind, std::vector<Cause>& out) {
  const Json& selector = member_or_null(spec, "selector");
  std::vector<Cause> reported_already;  // selector_rules reported these
  if (!selector.is_null() && !label_selector_rules(selector, "spec.selector", reported_already)) {
    out.push_back(
        field_invalid_raw("spec.selector", go_label_selector(selector), "invalid label selector"));
    return;
  }
  match_rule(selector, spec, out);
  const Json& tmpl = member_or_null(spec, "template");
  pod_template_rules(tmpl, "spec.template", out);
  const Json& pod_spec = member_or_null(tmpl, "spec");
  const std::string policy = text_of(pod_spec, "restartPolicy");
  if (policy != "Always") {
    out.push_back(field_not_supported("spec.template.spec.restartPolicy", policy, {"Always"}));
  }
  if (!member_or_null(pod_spec, "activeDeadlineSeconds").is_null()) {
    out.push_back(
        field_forbidden("spec.template.spec.activeDeadlineSeconds",
                        std::string("activeDeadlineSeconds in ") + kind + " is not Supported"));
  }
}

// The selector of apps/v1 workloads may not change (the strategies' ValidateUpdate).
void selector_immutable(const Json& obj, const Json* old, std::vector<Cause>& out) {
  if (!old) return;
  const Json& now = member_or_null(member_or_null(obj, "spec"), "selector");
  if (now != member_or_null(member_or_null(*old, "spec"), "selector")) {
    out.push_back(field_invalid_raw("spec.selector", go_label_selector(now), "field is immutable"));
  }
}

// %#v of apps.DeploymentStrategy with an unknown type.
std::string go_deployment_strategy(const std::string& type, const Json& rolling) {
  return "apps.DeploymentStrategy{Type:" + render_value(type) +
         ", RollingUpdate:(*apps.RollingUpdateDeployment)(" +
         (rolling.is_null() ? "nil" : "0xc000000000") + ")}";
}

// ValidateDeploymentStrategy on the strategy as SetDefaults_Deployment leaves it.
void deployment_strategy_rules(const Json& strategy, std::vector<Cause>& out) {
  const std::string type = text_of(strategy, "type");
  const Json& rolling = member_or_null(strategy, "rollingUpdate");
  if (type == "Recreate") {
    if (!rolling.is_null()) {
      out.push_back(field_forbidden("spec.strategy.rollingUpdate",
                                    "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type == "RollingUpdate") {
    if (!rolling.is_object()) {
      out.push_back(field_required("spec.strategy.rollingUpdate",
                                   "this should be defaulted and never be nil"));
      return;
    }
    const std::string at = "spec.strategy.rollingUpdate";
    const Json& unavailable = member_or_null(rolling, "maxUnavailable");
    const Json& surge = member_or_null(rolling, "maxSurge");
    long long u = int_or_percent_rules(unavailable, at + ".maxUnavailable", out, false);
    long long s = int_or_percent_rules(surge, at + ".maxSurge", out, false);
    if (u == 0 && s == 0) {
      out.push_back(field_invalid_raw(at + ".maxUnavailable", go_int_or_string(unavailable),
                                      "may not be 0 when `maxSurge` is 0"));
    }
    if (unavailable.is_string() && u > 100) {
      out.push_back(field_invalid_raw(at + ".maxUnavailable", go_int_or_string(unavailable),
                                      "must not be greater than 100%"));
    }
  } else {
    out.push_back({"FieldValueNotSupported",
                   "Unsupported value: " + go_deployment_strategy(type, rolling) +
                       ": supported values: \"Recreate\", \"RollingUpdate\"",
                   "spec.strategy"});
  }
}

// %#v of an apps.RollingUpdateStatefulSetStrategy (a pointer field.Invalid dereferences).
std::string go_rolling_sts(const Json& rolling) {
  const Json& partition = member_or_null(rolling, "partition");
  return "apps.RollingUpdateStatefulSetStrategy{Partition:" +
         std::to_string(partition.is_number_integer() ? partition.get<long long>() : 0) +
         ", MaxUnavailable:(*intstr.IntOrString)(" +
         (member_or_null(rolling, "maxUnavailable").is_null() ? "nil" : "0xc000000000") + ")}";
}

void stateful_set_strategy_rules(const Json& strategy, std::vector<Cause>& out) {
  const std::string type = text_of(strategy, "type");
  const Json& rolling = member_or_null(strategy, "rollingUpdate");
  const std::string at = "spec.updateStrategy";
  if (type.empty()) {
    out.push_back(field_required(at));
  } else if (type == "OnDelete") {
    if (!rolling.is_null()) {
      out.push_back(field_invalid_raw(at + ".rollingUpdate", go_rolling_sts(rolling),
                                      "only allowed for updateStrategy 'RollingUpdate'"));
    }
  } else if (type == "RollingUpdate") {
    if (!rolling.is_object()) return;
    non_negative(rolling, "partition", at + ".rollingUpdate", out);
    const Json& unavailable = member_or_null(rolling, "maxUnavailable");
    if (!unavailable.is_null()) {
      const std::string mu = at + ".rollingUpdate.maxUnavailable";
      long long n = int_or_percent_rules(unavailable, mu, out, true);
      if (n == 0)
        out.push_back(field_invalid_raw(mu, go_int_or_string(unavailable), "cannot be 0"));
    }
  } else {
    out.push_back(
        field_invalid_raw(at,
                          "apps.StatefulSetUpdateStrategy{Type:" + render_value(type) +
                              ", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(" +
                              (rolling.is_null() ? "nil" : "0xc000000000") + ")}",
                          "must be 'RollingUpdate' or 'OnDelete'"));
  }
}

// The StatefulSet spec without what an update may change (ValidateStatefulSetUpdate).
Json frozen_stateful_set_spec(const Json& spec) {
  Json frozen = object_or_empty(spec);
  for (const char* key : {"replicas", "template", "updateStrategy", "minReadySeconds", "ordinals",
                          "persistentVolumeClaimRetentionPolicy"}) {
    frozen.erase(key);
  }
  return frozen;
}

}  // namespace

void validate_deployment(const Json& obj, const Json* old, std::vector<Cause>& out) {
  const Json& spec = object_or_empty(member_or_null(obj, "spec"));
  non_negative(spec, "replicas", "spec", out);
  selector_rules(member_or_null(spec, "selector"), "deployment", out);
  replica_set_template_rules(spec, "ReplicaSet", out);
  deployment_strategy_rules(object_or_empty(member_or_null(spec, "strategy")), out);
  non_negative(spec, "minReadySeconds", "spec", out);
  non_negative(spec, "revisionHistoryLimit", "spec", out);
  const Json& deadline = member_or_null(spec, "progressDeadlineSeconds");
  if (deadline.is_number_integer()) {
    non_negative(spec, "progressDeadlineSeconds", "spec", out);
    const Json& min_ready = member_or_null(spec, "minReadySeconds");
    long long ready = min_ready.is_number_integer() ? min_ready.get<long long>() : 0;
    if (deadline.get<long long>() <= ready) {
      out.push_back(field_invalid("spec.progressDeadlineSeconds", deadline,
                                  "must be greater than minReadySeconds"));
    }
  }
  selector_immutable(obj, old, out);
}

void validate_replica_set(const Json& obj, const Json* old, std::vector<Cause>& out) {
  const Json& spec = object_or_empty(member_or_null(obj, "spec"));
  non_negative(spec, "replicas", "spec", out);
  non_negative(spec, "minReadySeconds", "spec", out);
  // The real message names deployments here too (ValidateReplicaSetSpec).
  selector_rules(member_or_null(spec, "selector"), "deployment", out);
  replica_set_template_rules(spec, "ReplicaSet", out);
  selector_immutable(obj, old, out);
}

void validate_stateful_set(const Json& obj, const Json* old, std::vector<Cause>& out) {
  const Json& spec = object_or_empty(member_or_null(obj, "spec"));
  const std::string policy = text_of(spec, "podManagementPolicy");
  if (policy.empty()) {
    out.push_back(field_required("spec.podManagementPolicy"));
  } else if (policy != "OrderedReady" && policy != "Parallel") {
    out.push_back(
        field_invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  stateful_set_strategy_rules(object_or_empty(member_or_null(spec, "updateStrategy")), out);
  const Json& retention = member_or_null(spec, "persistentVolumeClaimRetentionPolicy");
  for (const char* key : {"whenDeleted", "whenScaled"}) {
    if (!retention.is_object()) break;
    const std::string value = text_of(retention, key);
    if (value != "Retain" && value != "Delete") {
      out.push_back(
          field_not_supported(std::string("spec.persistentVolumeClaimRetentionPolicy.") + key,
                              value, {"Retain", "Delete"}));
    }
  }
  non_negative(spec, "replicas", "spec", out);
  non_negative(spec, "minReadySeconds", "spec", out);
  if (member_or_null(spec, "ordinals").is_object()) {
    const Json& start = member_or_null(member_or_null(spec, "ordinals"), "start");
    if (start.is_number_integer() && start.get<long long>() < 0) {
      out.push_back(
          field_invalid("spec.ordinals.start", start, "must be greater than or equal to 0"));
    }
  }
  const Json& selector = member_or_null(spec, "selector");
  bool converts = selector_rules(selector, "statefulset", out);
  if (!converts) {
    out.push_back(field_invalid_raw("spec.selector", go_label_selector(selector), ""));
  } else {
    // ValidatePodTemplateSpecForStatefulSet: labels and annotations, not the pod spec.
    match_rule(selector, spec, out);
    const Json& meta = member_or_null(member_or_null(spec, "template"), "metadata");
    label_map_rules(member_or_null(meta, "labels"), "spec.template.labels", out);
    annotation_map_rules(member_or_null(meta, "annotations"), "spec.template.annotations", out);
  }
  const Json& pod_spec = member_or_null(member_or_null(spec, "template"), "spec");
  const std::string restart = text_of(pod_spec, "restartPolicy");
  if (restart != "Always") {
    out.push_back(field_not_supported("spec.template.spec.restartPolicy", restart, {"Always"}));
  }
  if (!member_or_null(pod_spec, "activeDeadlineSeconds").is_null()) {
    out.push_back(field_forbidden("spec.template.spec.activeDeadlineSeconds",
                                  "activeDeadlineSeconds in StatefulSet is not Supported"));
  }
  if (old && frozen_stateful_set_spec(spec) !=
                 frozen_stateful_set_spec(object_or_empty(member_or_null(*old, "spec")))) {
    out.push_back(
        field_forbidden("spec",
                        "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                        "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
                        "'minReadySeconds' are forbidden"));
  }
}

void validate_daemon_set(const Json& obj, const Json* old, std::vector<Cause>& out) {
  const Json& spec = object_or_empty(member_or_null(obj, "spec"));
  const Json& selector = member_or_null(spec, "selector");
  // ValidateDaemonSetSpec: no Required for a missing selector, only the failed match.
  bool converts = selector.is_null() || label_selector_rules(selector, "spec.selector", out);
  if (converts) match_rule(selector, spec, out);
  if (selector.is_object() && empty_selector(selector)) {
    out.push_back(field_invalid_raw("spec.selector", go_label_selector(selector),
                                    "empty selector is invalid for daemonset"));
  }
  pod_template_rules(member_or_null(spec, "template"), "spec.template", out);
  validate_daemon_set_spec(spec, out);
  selector_immutable(obj, old, out);
}

}  // namespace respool::sandbox::kinds
