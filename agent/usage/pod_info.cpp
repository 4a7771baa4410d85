#include "agent/usage/pod_info.hpp"

#include "agent/usage/cgroup_path.hpp"

namespace respool::agent::usage {

namespace {

using Json = nlohmann::json;

std::string text_at(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The Job: its label (batch.kubernetes.io/job-name since 1.27, job-name before), else the
// controlling owner of kind Job.
std::string job_of(const Json& meta, const Json& labels) {
  for (const char* key : {"batch.kubernetes.io/job-name", "job-name"}) {
    if (auto name = text_at(labels, key); !name.empty()) return name;
  }
  for (const auto& owner : meta.value("ownerReferences", Json::array())) {
    if (owner.value("kind", "") == "Job" && owner.value("controller", false)) {
      return text_at(owner, "name");
    }
  }
  return "";
}

// Indexed Jobs put the index in a label (1.28+) and an annotation (every version).
std::string task_of(const Json& labels, const Json& annotations) {
  constexpr const char* kIndex = "batch.kubernetes.io/job-completion-index";
  auto index = text_at(labels, kIndex);
  if (index.empty()) index = text_at(annotations, kIndex);
  return index.empty() ? "" : "worker-" + index;
}

}  // namespace

std::optional<std::string> PodInfo::container_name(std::string_view id) const {
  for (const auto& [runtime_id, name] : containers) {
    if (runtime_id == id) return name;
  }
  return std::nullopt;
}

PodInfo pod_info_from_json(const Json& pod) {
  PodInfo out;
  const auto meta = pod.value("metadata", Json::object());
  const auto labels = meta.value("labels", Json::object());
  const auto annotations = meta.value("annotations", Json::object());
  out.namespace_ = text_at(meta, "namespace");
  out.name = text_at(meta, "name");
  out.uid = text_at(meta, "uid");
  out.job = job_of(meta, labels);
  if (!out.job.empty()) out.task = task_of(labels, annotations);
  const auto status = pod.value("status", Json::object());
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const auto& c : status.value(list, Json::array())) {
      auto id = text_at(c, "containerID");
      if (id.empty()) continue;  // not started yet
      out.containers.emplace_back(std::string(strip_runtime_scheme(id)), text_at(c, "name"));
    }
  }
  return out;
}

}  // namespace respool::agent::usage
