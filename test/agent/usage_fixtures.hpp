#pragma once
// Made-up pods, cgroup files and /metrics lookups for the usage tests.

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/usage/pod_info.hpp"
#include "agent/usage/process_owner.hpp"

namespace respool::agent::test {

// pid → cgroup text; a pid missing has exited.
struct Cgroups {
  std::map<unsigned int, std::string> files;
  usage::CgroupReader reader() const {
    return [this](unsigned int pid) -> std::optional<std::string> {
      auto it = files.find(pid);
      if (it == files.end()) return std::nullopt;
      return it->second;
    };
  }
};

// A 64-hex container ID that differs by `n`.
inline std::string container_id(int n) {
  std::string id(64, 'a');
  auto suffix = std::to_string(n);
  id.replace(id.size() - suffix.size(), suffix.size(), suffix);
  return id;
}

inline std::string pod_uid(int n) {
  return "6f1c2a3b-1111-2222-3333-" + std::string(12 - std::to_string(n).size(), '0') +
         std::to_string(n);
}

// The v2 cgroup of a container under the systemd driver, as containerd names its scope.
inline std::string cgroup_v2_systemd(const std::string& uid, const std::string& id) {
  std::string underscored = uid;
  for (auto& c : underscored)
    if (c == '-') c = '_';
  return "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + underscored +
         ".slice/cri-containerd-" + id + ".scope\n";
}

// Worker `index` of Indexed Job `job`, its one container `train` running as `id`.
inline nlohmann::json job_pod(const std::string& job, int index, const std::string& uid,
                              const std::string& id) {
  const auto i = std::to_string(index);
  return {
      {"metadata",
       {{"name", job + "-" + i + "-x7k2p"},
        {"namespace", "default"},
        {"uid", uid},
        {"labels",
         {{"batch.kubernetes.io/job-name", job}, {"batch.kubernetes.io/job-completion-index", i}}},
        {"ownerReferences", {{{"kind", "Job"}, {"name", job}, {"controller", true}}}}}},
      {"status",
       {{"containerStatuses", {{{"name", "train"}, {"containerID", "containerd://" + id}}}}}}};
}

// A PodLookup over pods given as JSON.
struct Pods {
  std::vector<nlohmann::json> items;
  usage::PodLookup lookup() const {
    return [this](std::string_view uid) -> std::optional<usage::PodInfo> {
      for (const auto& p : items) {
        auto info = usage::pod_info_from_json(p);
        if (info.uid == uid) return info;
      }
      return std::nullopt;
    };
  }
};

// The value of the first sample of `name` whose labels include every `k="v"` of `labels`.
inline std::optional<double> sample(const std::string& metrics, const std::string& name,
                                    const std::vector<std::string>& labels) {
  std::istringstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(name + "{")) continue;
    bool all = true;
    for (const auto& l : labels)
      all = all && line.find(l) != std::string::npos;
    if (all) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return std::nullopt;
}

inline int series(const std::string& metrics, const std::string& name) {
  std::istringstream in(metrics);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.starts_with(name + "{");
  return n;
}

}  // namespace respool::agent::test
