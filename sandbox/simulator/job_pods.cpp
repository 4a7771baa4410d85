#include "sandbox/simulator/job_pods.hpp"

#include <algorithm>
#include <string>

#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/job_indexes.hpp"
#include "sandbox/simulator/keys.hpp"

namespace respool::sandbox::sim {
namespace {

using Json = nlohmann::json;

// JOB_COMPLETION_INDEX from the pod's annotation, unless the container names it already.
void add_index_variable(Json& containers) {
  if (!containers.is_array()) return;
  for (auto& c : containers) {
    if (!c.is_object()) continue;
    Json& env = c["env"];
    if (!env.is_array()) env = Json::array();
    bool present = false;
    for (const auto& e : env)
      present =
          present || (e.is_object() && e.value("name", std::string()) == "JOB_COMPLETION_INDEX");
    if (present) continue;
    env.push_back({{"name", "JOB_COMPLETION_INDEX"},
                   {"valueFrom",
                    {{"fieldRef",
                      {{"apiVersion", "v1"},
                       {"fieldPath",
                        std::string("metadata.annotations['") + kCompletionIndexKey + "']"}}}}}});
  }
}

}  // namespace

Json job_pod(const Json& job, std::optional<int> index) {
  const Json& tmpl = at_path(job, {"spec", "template"});
  const std::string name = string_at(job, {"metadata", "name"});
  const std::string uid = string_at(job, {"metadata", "uid"});
  Json labels = at_path(tmpl, {"metadata", "labels"});
  if (!labels.is_object()) labels = Json::object();
  labels["batch.kubernetes.io/controller-uid"] = uid;
  labels["batch.kubernetes.io/job-name"] = name;
  labels["controller-uid"] = uid;
  labels["job-name"] = name;
  Json annotations = at_path(tmpl, {"metadata", "annotations"});
  if (!annotations.is_object()) annotations = Json::object();
  if (!annotations.contains(kRunSecondsAnnotation) && !annotations.contains(kLogIntervalAnnotation))
    annotations[kRunSecondsAnnotation] = kJobPodRunSeconds;
  Json spec = at_path(tmpl, {"spec"});
  if (!spec.is_object()) spec = Json::object();
  std::string generate_name = name + "-";
  if (index) {
    const std::string ix = std::to_string(*index);
    annotations[kCompletionIndexKey] = ix;
    labels[kCompletionIndexKey] = ix;
    spec["hostname"] = name + "-" + ix;
    generate_name = name + "-" + ix + "-";
    add_index_variable(spec["containers"]);
    if (spec.contains("initContainers")) add_index_variable(spec["initContainers"]);
  }
  Json finalizers = at_path(tmpl, {"metadata", "finalizers"});
  if (!finalizers.is_array()) finalizers = Json::array();
  if (std::find(finalizers.begin(), finalizers.end(), kJobTrackingFinalizer) == finalizers.end())
    finalizers.push_back(kJobTrackingFinalizer);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"generateName", generate_name},
            {"namespace", string_at(job, {"metadata", "namespace"})},
            {"labels", labels},
            {"annotations", annotations},
            {"finalizers", finalizers},
            {"ownerReferences", Json::array({{{"apiVersion", "batch/v1"},
                                              {"kind", "Job"},
                                              {"name", name},
                                              {"uid", uid},
                                              {"controller", true},
                                              {"blockOwnerDeletion", true}}})}}},
          {"spec", spec}};
}

}  // namespace respool::sandbox::sim
