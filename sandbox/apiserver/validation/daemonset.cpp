// The DaemonSet spec rules of pkg/apis/apps/validation (v1.32) beyond the selector: the
// template's restartPolicy and activeDeadlineSeconds, the counts, the update strategy.

#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

// ValidateDaemonSetUpdateStrategy on the strategy as decoding defaults it (SetDefaults_DaemonSet
// on every write: type RollingUpdate, maxUnavailable 1, maxSurge 0); the sandbox defaults it on
// create only, so what an update leaves out is taken as the default here.
void daemon_set_strategy_rules(const Json& strategy, std::vector<Cause>& out) {
  const std::string at = "spec.updateStrategy";
  std::string type = text_of(strategy, "type");
  if (type.empty()) type = "RollingUpdate";
  Json rolling = member_or_null(strategy, "rollingUpdate");
  if (type == "OnDelete") return;
  if (type != "RollingUpdate") {
    std::string shown = "apps.DaemonSetUpdateStrategy{Type:" + render_value(type) +
                        ", RollingUpdate:(*apps.RollingUpdateDaemonSet)(" +
                        (rolling.is_null() ? "nil" : "0xc000000000") + ")}";
    out.push_back(
        {"FieldValueNotSupported",
         "Unsupported value: " + shown + ": supported values: \"RollingUpdate\", \"OnDelete\"",
         at});
    return;
  }
  if (!rolling.is_object()) rolling = Json::object();
  const std::string ru = at + ".rollingUpdate";
  Json unavailable = member_or_null(rolling, "maxUnavailable");
  Json surge = member_or_null(rolling, "maxSurge");
  if (unavailable.is_null()) unavailable = 1;
  if (surge.is_null()) surge = 0;
  long long u = int_or_percent_rules(unavailable, ru + ".maxUnavailable", out, true);
  long long s = int_or_percent_rules(surge, ru + ".maxSurge", out, true);
  if (u != 0 && s != 0) {
    out.push_back(field_invalid_raw(ru + ".maxSurge", go_int_or_string(surge),
                                    "may not be set when maxUnavailable is non-zero"));
  } else if (u == 0 && s == 0) {
    out.push_back(field_required(ru + ".maxUnavailable", "cannot be 0 when maxSurge is 0"));
  }
}

}  // namespace

void validate_daemon_set_spec(const Json& spec_in, std::vector<Cause>& out) {
  const Json& spec = object_or_empty(spec_in);
  const Json tmpl_spec =
      object_or_empty(member_or_null(object_or_empty(member_or_null(spec, "template")), "spec"));
  const std::string policy = text_of(tmpl_spec, "restartPolicy");
  if (policy != "Always") {
    out.push_back(field_not_supported("spec.template.spec.restartPolicy", policy, {"Always"}));
  }
  if (!member_or_null(tmpl_spec, "activeDeadlineSeconds").is_null()) {
    out.push_back(field_forbidden("spec.template.spec.activeDeadlineSeconds",
                                  "activeDeadlineSeconds in DaemonSet is not Supported"));
  }
  non_negative(spec, "minReadySeconds", "spec", out);
  non_negative(spec, "templateGeneration", "spec", out);
  daemon_set_strategy_rules(object_or_empty(member_or_null(spec, "updateStrategy")), out);
  non_negative(spec, "revisionHistoryLimit", "spec", out);
}

}  // namespace respool::sandbox::kinds
