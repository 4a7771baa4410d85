// The downward API's selectors as validateObjectFieldSelector and
// validateContainerResourceFieldSelector (pkg/apis/core/validation, v1.32) check them, for env
// valueFrom and downwardAPI volume files; and the small helpers the pod-spec files share.

#include <algorithm>
#include <expected>

#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

// podshelper.ConvertDownwardAPIFieldLabel for "v1": the field path as stored, or the error.
std::expected<std::string, std::string> downward_convert(const std::string& version,
                                                         const std::string& label) {
  if (version != "v1") return std::unexpected("unsupported pod version: " + version);
  if (label.ends_with("']")) {
    auto open = label.find("['");
    if (open != std::string::npos && open > 0) {
      std::string path = label.substr(0, open);
      if (path == "metadata.annotations" || path == "metadata.labels") return label;
      return std::unexpected("field label does not support subscript: " + label);
    }
  }
  static const std::set<std::string> kLabels = {
      "metadata.annotations", "metadata.labels", "metadata.name",      "metadata.namespace",
      "metadata.uid",         "spec.nodeName",   "spec.restartPolicy", "spec.serviceAccountName",
      "spec.schedulerName",   "status.phase",    "status.hostIP",      "status.hostIPs",
      "status.podIP",         "status.podIPs"};
  if (kLabels.contains(label)) return label;
  if (label == "spec.host") return std::string("spec.nodeName");
  return std::unexpected("field label not supported: " + label);
}

}  // namespace

Cause field_not_found(std::string field, const Json& value) {
  return {"FieldValueNotFound", "Not found: " + render_value(value), std::move(field)};
}

void object_field_selector_rules(const Json& ref, bool volume, const std::string& at,
                                 std::vector<Cause>& out) {
  // apiVersion is defaulted to "v1" (SetDefaults_ObjectFieldSelector) when left out.
  const Json& version_v = member_or_null(ref, "apiVersion");
  const std::string version = version_v.is_string() ? version_v.get<std::string>() : "v1";
  if (version.empty()) {
    out.push_back(field_required(at + ".apiVersion"));
    return;
  }
  const std::string field_path = text_of(ref, "fieldPath");
  if (field_path.empty()) {
    out.push_back(field_required(at + ".fieldPath"));
    return;
  }
  auto converted = downward_convert(version, field_path);
  if (!converted) {
    out.push_back(field_invalid(at + ".fieldPath", field_path,
                                "error converting fieldPath: " + converted.error()));
    return;
  }
  const std::string& internal = *converted;
  if (internal.ends_with("']") && internal.find("['") != std::string::npos) {
    auto open = internal.find("['");
    std::string path = internal.substr(0, open);
    std::string subscript = internal.substr(open + 2, internal.size() - open - 4);
    if (path == "metadata.annotations") {
      std::transform(subscript.begin(), subscript.end(), subscript.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    }
    for (const std::string& msg : check_qualified_name(subscript))
      out.push_back(field_invalid(at, subscript, msg));
    return;
  }
  static const std::vector<std::string> kEnv = {"metadata.name",
                                                "metadata.namespace",
                                                "metadata.uid",
                                                "spec.nodeName",
                                                "spec.serviceAccountName",
                                                "status.hostIP",
                                                "status.hostIPs",
                                                "status.podIP",
                                                "status.podIPs"};
  static const std::vector<std::string> kVolume = {"metadata.annotations", "metadata.labels",
                                                   "metadata.name", "metadata.namespace",
                                                   "metadata.uid"};
  const auto& allowed = volume ? kVolume : kEnv;
  if (std::find(allowed.begin(), allowed.end(), internal) == allowed.end()) {
    out.push_back(field_not_supported(at + ".fieldPath", internal, allowed));
  }
}

void resource_field_selector_rules(const Json& ref, bool volume, const std::string& at,
                                   std::vector<Cause>& out) {
  static const std::vector<std::string> kResources = {
      "limits.cpu",   "limits.ephemeral-storage",   "limits.memory",
      "requests.cpu", "requests.ephemeral-storage", "requests.memory"};
  const std::string resource = text_of(ref, "resource");
  if (volume && text_of(ref, "containerName").empty()) {
    out.push_back(field_required(at + ".containerName"));
  } else if (resource.empty()) {
    out.push_back(field_required(at + ".resource"));
  } else if (std::find(kResources.begin(), kResources.end(), resource) == kResources.end() &&
             !resource.starts_with("requests.hugepages-") &&
             !resource.starts_with("limits.hugepages-")) {
    out.push_back(field_not_supported(at + ".resource", resource, kResources));
  }
  // validateContainerResourceDivisor: an unset (zero) divisor means 1.
  const Json& divisor = member_or_null(ref, "divisor");
  if (divisor.is_null()) return;
  const std::string shown =
      go_quantity_string(divisor.is_string() ? divisor.get<std::string>() : divisor.dump());
  if (shown == "0") return;
  static const std::set<std::string> kBytes = {"1",   "1k",  "1M",  "1G",  "1T",  "1P", "1E",
                                               "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"};
  const std::string bytes_values =
      "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are "
      "supported with the ";
  if (resource == "limits.cpu" || resource == "requests.cpu") {
    if (shown != "1m" && shown != "1") {
      out.push_back(field_invalid(at + ".divisor", resource,
                                  "only divisor's values 1m and 1 are supported with the cpu "
                                  "resource"));
    }
  } else if (resource == "limits.memory" || resource == "requests.memory") {
    if (!kBytes.contains(shown))
      out.push_back(field_invalid(at + ".divisor", resource, bytes_values + "memory resource"));
  } else if (resource == "limits.ephemeral-storage" || resource == "requests.ephemeral-storage") {
    if (!kBytes.contains(shown)) {
      out.push_back(field_invalid(at + ".divisor", resource,
                                  bytes_values + "local ephemeral storage resource"));
    }
  }
  if ((resource.starts_with("requests.hugepages-") || resource.starts_with("limits.hugepages-")) &&
      !kBytes.contains(shown)) {
    out.push_back(field_invalid(at + ".divisor", resource, bytes_values + "hugepages resource"));
  }
}

}  // namespace respool::sandbox::kinds
