// Validation of built-in kinds: the per-kind dispatch, names, Pods, Leases and PDBs.

#include <map>
#include <regex>

#include "apimachinery/names.hpp"
#include "apimachinery/time.hpp"
#include "operator/kube/selector.hpp"
#include "sandbox/apiserver/strategies/warnings.hpp"
#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {
namespace {

// The first of a name check's messages (the length, else the syntax), none when it is valid.
std::optional<std::string> first_name_error(std::vector<std::string> errors) {
  if (errors.empty()) return std::nullopt;
  return std::move(errors.front());
}

std::optional<std::string> check_dns_1035(const std::string& name) {
  return first_name_error(apimachinery::dns1035_label_errors(name));
}

// path.IsValidPathSegmentName, the rule of RBAC object names ("system:discovery").
std::optional<std::string> check_path_segment(const std::string& name) {
  if (name == "." || name == "..") return "may not be '" + name + "'";
  for (const char* bad : {"/", "%"}) {
    if (name.find(bad) != std::string::npos) return std::string("may not contain '") + bad + "'";
  }
  return std::nullopt;
}

void validate_pod(const Json& obj, const Json* old, std::vector<Cause>& out) {
  const Json spec = obj.value("spec", Json::object());
  validate_pod_spec(spec, "spec", out);
  if (!old) {
    // ValidatePodCreate: ephemeral containers come through pods/ephemeralcontainers only, and a
    // gated pod may not be bound yet.
    const Json& ephemeral = spec.value("ephemeralContainers", Json());
    if (ephemeral.is_array() && !ephemeral.empty()) {
      out.push_back(field_forbidden("spec.ephemeralContainers", "cannot be set on create"));
    }
    const Json& gates = spec.value("schedulingGates", Json());
    if (!text_of(spec, "nodeName").empty() && gates.is_array() && !gates.empty()) {
      out.push_back(field_forbidden("spec.nodeName",
                                    "cannot be set until all schedulingGates have been cleared"));
    }
    return;
  }
  // Pod updates may change only images, activeDeadlineSeconds, tolerations and the grace period.
  auto mutable_view = [](Json s) {
    if (!s.is_object()) return s;
    for (const char* list : {"containers", "initContainers"}) {
      if (s.contains(list) && s[list].is_array()) {
        for (Json& c : s[list]) {
          if (c.is_object()) c.erase("image");
        }
      }
    }
    s.erase("activeDeadlineSeconds");
    s.erase("tolerations");
    s.erase("terminationGracePeriodSeconds");
    s.erase("schedulingGates");
    return s;
  };
  if (mutable_view(spec) != mutable_view(old->value("spec", Json::object()))) {
    out.push_back(field_forbidden(
        "spec",
        "pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
        "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
        "set to 1 if it was previously negative)"));
  }
}

bool valid_int_or_percent(const Json& v) {
  if (v.is_number_integer()) return v.get<long long>() >= 0;
  if (!v.is_string()) return false;
  static const std::regex pct("[0-9]+%");
  return std::regex_match(v.get<std::string>(), pct);
}

void validate_pdb(const Json& obj, const Json*, std::vector<Cause>& out) {
  const Json spec = obj.value("spec", Json::object());
  bool min = spec.contains("minAvailable") && !spec["minAvailable"].is_null();
  bool max = spec.contains("maxUnavailable") && !spec["maxUnavailable"].is_null();
  if (min && max) {
    out.push_back(
        field_invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  }
  for (const char* f : {"minAvailable", "maxUnavailable"}) {
    if (spec.contains(f) && !spec[f].is_null() && !valid_int_or_percent(spec[f])) {
      out.push_back(field_invalid(std::string("spec.") + f, spec[f],
                                  "must be a non-negative integer or a percentage"));
    }
  }
  if (spec.contains("selector") && !spec["selector"].is_null()) {
    if (auto parsed = kube::LabelSelector::from_json(spec["selector"]); !parsed) {
      out.push_back(field_invalid("spec.selector", spec["selector"], parsed.error()));
    }
  }
}

void validate_lease(const Json& obj, const Json*, std::vector<Cause>& out) {
  const Json spec = obj.value("spec", Json::object());
  if (spec.contains("leaseDurationSeconds") && spec["leaseDurationSeconds"].is_number_integer() &&
      spec["leaseDurationSeconds"].get<long long>() <= 0) {
    out.push_back(field_invalid("spec.leaseDurationSeconds", spec["leaseDurationSeconds"],
                                "must be greater than 0"));
  }
  if (spec.contains("leaseTransitions") && spec["leaseTransitions"].is_number_integer() &&
      spec["leaseTransitions"].get<long long>() < 0) {
    out.push_back(field_invalid("spec.leaseTransitions", spec["leaseTransitions"],
                                "must be greater than or equal to 0"));
  }
}

}  // namespace

std::optional<std::string> name_rule_message(const std::string& name, NameRule rule) {
  switch (rule) {
    case NameRule::Label:
      return check_dns_label(name);
    case NameRule::Rfc1035:
      return check_dns_1035(name);
    case NameRule::PathSegment:
      return check_path_segment(name);
    case NameRule::Subdomain:
      return check_dns_subdomain(name);
    case NameRule::None:
      break;
  }
  return std::nullopt;
}

std::string go_time_string(const std::string& rfc3339) {
  auto t = apimachinery::parse_time(rfc3339);
  if (!t) return render_value(rfc3339);
  std::string text = apimachinery::format_time(*t);  // 2026-01-01T00:00:00Z
  text[10] = ' ';
  text.pop_back();
  return text + " +0000 UTC";
}

std::optional<std::string> check_dns_subdomain(const std::string& name) {
  return first_name_error(apimachinery::dns1123_subdomain_errors(name));
}

std::optional<std::string> check_dns_label(const std::string& name) {
  return first_name_error(apimachinery::dns1123_label_errors(name));
}

std::vector<std::string> check_qualified_name(const std::string& key) {
  return apimachinery::qualified_name_errors(key);
}

std::vector<std::string> check_label_value(const std::string& value) {
  return apimachinery::label_value_errors(value);
}

Cause field_invalid_raw(std::string field, const std::string& rendered, std::string_view detail) {
  std::string msg = "Invalid value: " + rendered;
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueInvalid", std::move(msg), std::move(field)};
}

Cause field_duplicate_raw(std::string field, const std::string& rendered, std::string_view detail) {
  std::string msg = "Duplicate value: " + rendered;
  if (!detail.empty()) msg += ": " + std::string(detail);
  return {"FieldValueDuplicate", std::move(msg), std::move(field)};
}

std::vector<std::string> create_warnings(const ResourceType& type, const Json& obj) {
  // WarningsOnCreate of the workload strategies: a name that is not a DNS label.
  const char* used_in = nullptr;
  if (type.id == KindId::Pod) {
    used_in = "the Pod's hostname";
  } else if (type.id == KindId::Deployment || type.id == KindId::ReplicaSet ||
             type.id == KindId::Job || type.id == KindId::CronJob ||
             type.id == KindId::ReplicationController) {
    used_in = "Pod names and hostnames";
  }
  if (!used_in) return {};
  auto bad = check_dns_label(text_of(obj.value("metadata", Json::object()), "name"));
  if (!bad) return {};
  return {std::string("metadata.name: this is used in ") + used_in +
          ", which can result in surprising behavior; a DNS label is recommended: [" + *bad + "]"};
}

std::vector<Cause> validate(const ResourceType& type, const Json& obj, const Json* old) {
  using Rules = void (*)(const Json&, const Json*, std::vector<Cause>&);
  static const std::map<KindId, Rules> by_kind = {
      {KindId::Pod, validate_pod},
      {KindId::Deployment, validate_deployment},
      {KindId::ReplicaSet, validate_replica_set},
      {KindId::StatefulSet, validate_stateful_set},
      {KindId::DaemonSet, validate_daemon_set},
      {KindId::Service, validate_service},
      {KindId::Event, [](const Json& o, const Json* old_event,
                         std::vector<Cause>& out) { validate_event(o, old_event, false, out); }},
      {KindId::EventV1, [](const Json& o, const Json* old_event,
                           std::vector<Cause>& out) { validate_event(o, old_event, true, out); }},
      {KindId::ConfigMap, validate_config_map},
      {KindId::Node, validate_node},
      {KindId::Job, validate_job},
      {KindId::PodDisruptionBudget, validate_pdb},
      {KindId::Lease, validate_lease},
  };
  std::vector<Cause> out;
  validate_metadata(type, obj, old, out);
  if (auto rules = by_kind.find(type.id); rules != by_kind.end()) rules->second(obj, old, out);
  return out;
}

const Json& member_or_null(const Json& obj, const char* key) {
  static const Json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

const Json& object_or_empty(const Json& v) {
  static const Json kEmpty = Json::object();
  return v.is_object() ? v : kEmpty;
}

std::string indexed(const std::string& at, std::size_t i) {
  return at + "[" + std::to_string(i) + "]";
}

}  // namespace respool::sandbox::kinds
