// A container's volumeMounts and volumeDevices as ValidateVolumeMounts and
// ValidateVolumeDevices (pkg/apis/core/validation, v1.32) check them: a volume that passed
// validation, unique paths, relative sub-paths without "..", propagation, block devices only
// from claims, and no name or path in both lists.

#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

// name -> path of a container's volumeMounts or volumeDevices (GetVolumeMountMap: the last
// entry of a name wins).
std::map<std::string, std::string> mount_paths(const Json& list, const char* path_key) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; list.is_array() && i < list.size(); ++i) {
    const Json& m = object_or_empty(list[i]);
    out[text_of(m, "name")] = text_of(m, path_key);
  }
  return out;
}

bool mount_path_listed(const std::map<std::string, std::string>& paths, const std::string& path) {
  for (const auto& [name, p] : paths) {
    if (p == path) return true;
  }
  return false;
}

bool mount_has_backsteps(const std::string& path) {
  std::vector<Cause> errs;
  local_descending_path_rules("x/" + path, "", errs);  // relative, so only ".." can fail
  return !errs.empty();
}

}  // namespace

void volume_mount_rules(const Json& container, const PodVolumes& volumes, const std::string& c_at,
                        std::vector<Cause>& out) {
  const std::string at = c_at + ".volumeMounts";
  const Json& mounts = member_or_null(container, "volumeMounts");
  const auto devices = mount_paths(member_or_null(container, "volumeDevices"), "devicePath");
  std::set<std::string> mount_points;
  for (std::size_t i = 0; mounts.is_array() && i < mounts.size(); ++i) {
    const Json& m = object_or_empty(mounts[i]);
    const std::string m_at = indexed(at, i);
    const std::string name = text_of(m, "name");
    const std::string path = text_of(m, "mountPath");
    if (name.empty()) out.push_back(field_required(m_at + ".name"));
    if (!volumes.contains(name)) out.push_back(field_not_found(m_at + ".name", name));
    if (path.empty()) out.push_back(field_required(m_at + ".mountPath"));
    if (!mount_points.insert(path).second) {
      out.push_back(field_invalid(m_at + ".mountPath", path, "must be unique"));
    }
    if (devices.contains(name)) {
      out.push_back(field_invalid(m_at + ".name", name, "must not already exist in volumeDevices"));
    }
    if (mount_path_listed(devices, path)) {
      out.push_back(field_invalid(m_at + ".mountPath", path,
                                  "must not already exist as a path in volumeDevices"));
    }
    // As the real server, subPath errors name the list, not the mount (fldPath.Child).
    const std::string sub_path = text_of(m, "subPath");
    const std::string sub_expr = text_of(m, "subPathExpr");
    if (!sub_path.empty()) local_descending_path_rules(sub_path, at + ".subPath", out);
    if (!sub_expr.empty()) {
      if (!sub_path.empty()) {
        out.push_back(field_invalid(m_at + ".subPathExpr", sub_expr,
                                    "subPathExpr and subPath are mutually exclusive"));
      }
      local_descending_path_rules(sub_expr, at + ".subPathExpr", out);
    }
    const Json& propagation = member_or_null(m, "mountPropagation");
    if (propagation.is_string()) {
      const std::string p = propagation.get<std::string>();
      if (p != "Bidirectional" && p != "HostToContainer" && p != "None") {
        out.push_back(field_not_supported(at + ".mountPropagation", p,
                                          {"Bidirectional", "HostToContainer", "None"}));
      }
      const Json& sc = member_or_null(container, "securityContext");
      if (p == "Bidirectional" && member_or_null(sc, "privileged") != true) {
        out.push_back(field_forbidden(
            at + ".mountPropagation",
            "Bidirectional mount propagation is available only to privileged containers"));
      }
    }
  }
}

void volume_device_rules(const Json& container, const PodVolumes& volumes, const std::string& c_at,
                         std::vector<Cause>& out) {
  const std::string at = c_at + ".volumeDevices";
  const Json& devices = member_or_null(container, "volumeDevices");
  const auto mounts = mount_paths(member_or_null(container, "volumeMounts"), "mountPath");
  std::set<std::string> names;
  std::set<std::string> paths;
  for (std::size_t i = 0; devices.is_array() && i < devices.size(); ++i) {
    const Json& d = object_or_empty(devices[i]);
    const std::string d_at = indexed(at, i);
    const std::string name = text_of(d, "name");
    const std::string path = text_of(d, "devicePath");
    auto volume = volumes.find(name);
    const bool claim = volume != volumes.end() &&
                       (volume->second == "persistentVolumeClaim" || volume->second == "ephemeral");
    if (name.empty()) out.push_back(field_required(d_at + ".name"));
    if (names.contains(name)) out.push_back(field_invalid(d_at + ".name", name, "must be unique"));
    if (volume != volumes.end() && !claim) {
      out.push_back(field_invalid(d_at + ".name", name,
                                  "can only use volume source type of PersistentVolumeClaim or "
                                  "Ephemeral for block mode"));
    }
    if (volume == volumes.end()) out.push_back(field_not_found(d_at + ".name", name));
    if (path.empty()) out.push_back(field_required(d_at + ".devicePath"));
    if (paths.contains(path)) {
      out.push_back(field_invalid(d_at + ".devicePath", path, "must be unique"));
    }
    if (!path.empty() && mount_has_backsteps(path)) {
      out.push_back(field_invalid(d_at + ".devicePath", path, "can not contain backsteps ('..')"));
    } else {
      paths.insert(path);
    }
    if (mounts.contains(name)) {
      out.push_back(field_invalid(d_at + ".name", name, "must not already exist in volumeMounts"));
    }
    if (mount_path_listed(mounts, path)) {
      out.push_back(field_invalid(d_at + ".devicePath", path,
                                  "must not already exist as a path in volumeMounts"));
    }
    if (!name.empty()) names.insert(name);
  }
}

}  // namespace respool::sandbox::kinds
