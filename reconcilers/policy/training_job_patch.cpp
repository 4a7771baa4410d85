#include "reconcilers/policy/training_job_patch.hpp"

#include <algorithm>

#include "reconcilers/policy/restart_ledger.hpp"

namespace respool::policy {

namespace {

using Json = nlohmann::json;

bool is_exclusion(const Json& field) {
  return field.is_object() && field.value("key", "") == "metadata.name" &&
         field.value("operator", "") == "NotIn";
}

}  // namespace

Json job_annotations_patch(const std::string& resource_version, const RestartLedger& ledger,
                           const FaultTolerance& tolerance,
                           const std::vector<RunningRecord>* records, std::optional<bool> suspend) {
  Json annotations = {{kFaultToleranceStateAnnotation, to_json(ledger, tolerance).dump()}};
  if (records) annotations[kRunningRecordsAnnotation] = to_json(*records).dump();
  Json patch = {
      {"metadata", {{"resourceVersion", resource_version}, {"annotations", annotations}}}};
  if (suspend) patch["spec"] = {{"suspend", *suspend}};
  return patch;
}

Json clear_start_time_patch(const std::string& resource_version) {
  return {{"metadata", {{"resourceVersion", resource_version}}},
          {"status", {{"startTime", nullptr}}}};
}

Json resume_patch(const std::string& resource_version, const RestartLedger& ledger,
                  const FaultTolerance& tolerance, const Json& affinity) {
  Json patch = job_annotations_patch(resource_version, ledger, tolerance, nullptr, false);
  Json& template_ = patch["spec"]["template"];
  template_["metadata"]["labels"][kRunLabel] = std::to_string(ledger.run);
  if (!ledger.excluded_nodes.empty())
    template_["spec"]["affinity"] = exclude_nodes(affinity, ledger.excluded_nodes);
  return patch;
}

Json exclude_nodes(Json affinity, const std::vector<std::string>& nodes) {
  if (!affinity.is_object()) affinity = Json::object();
  Json& node_affinity = affinity["nodeAffinity"];
  if (!node_affinity.is_object()) node_affinity = Json::object();
  Json& required = node_affinity["requiredDuringSchedulingIgnoredDuringExecution"];
  if (!required.is_object()) required = Json::object();
  Json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = Json::array({Json::object()});
  for (Json& term : terms) {
    if (!term.is_object()) term = Json::object();
    Json& fields = term["matchFields"];
    if (!fields.is_array()) fields = Json::array();
    Json* exclusion = nullptr;
    for (Json& f : fields)
      if (is_exclusion(f) && !exclusion) exclusion = &f;
    if (!exclusion) {
      fields.push_back(
          {{"key", "metadata.name"}, {"operator", "NotIn"}, {"values", Json::array()}});
      exclusion = &fields.back();
    }
    Json& values = (*exclusion)["values"];
    if (!values.is_array()) values = Json::array();
    for (const std::string& node : nodes)
      if (std::find(values.begin(), values.end(), Json(node)) == values.end())
        values.push_back(node);
  }
  return affinity;
}

}  // namespace respool::policy
