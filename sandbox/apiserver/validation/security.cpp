// Security contexts as ValidateSecurityContext and validatePodSpecSecurityContext
// (pkg/apis/core/validation, v1.32) check them, and the `os` field's rules (validateOS,
// validateLinux, validateWindows). The server allows privileged containers (as kubeadm's and
// kind's `--allow-privileged=true` do), so `privileged` itself is never refused.

#include <regex>

#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

const char* kIdRange = "must be between 0 and 2147483647, inclusive";

void sec_id_rule(const Json& holder, const char* key, const std::string& at,
                 std::vector<Cause>& out) {
  const Json& id = member_or_null(holder, key);
  if (id.is_number_integer() && (id.get<long long>() < 0 || id.get<long long>() > 2147483647)) {
    out.push_back(field_invalid(at + "." + key, id, kIdRange));
  }
}

// %#v of a *T field inside a struct: nil, or a pointer.
std::string sec_ptr(const Json& sc, const char* key, const char* type) {
  return std::string("(*") + type + ")(" +
         (member_or_null(sc, key).is_null() ? "nil" : kGoPointer) + ")";
}

// %#v of core.SecurityContext, as "Invalid value:" shows the whole context.
std::string sec_go_security_context(const Json& sc) {
  return "core.SecurityContext{Capabilities:" + sec_ptr(sc, "capabilities", "core.Capabilities") +
         ", Privileged:" + sec_ptr(sc, "privileged", "bool") +
         ", SELinuxOptions:" + sec_ptr(sc, "seLinuxOptions", "core.SELinuxOptions") +
         ", WindowsOptions:" + sec_ptr(sc, "windowsOptions", "core.WindowsSecurityContextOptions") +
         ", RunAsUser:" + sec_ptr(sc, "runAsUser", "int64") +
         ", RunAsGroup:" + sec_ptr(sc, "runAsGroup", "int64") +
         ", RunAsNonRoot:" + sec_ptr(sc, "runAsNonRoot", "bool") +
         ", ReadOnlyRootFilesystem:" + sec_ptr(sc, "readOnlyRootFilesystem", "bool") +
         ", AllowPrivilegeEscalation:" + sec_ptr(sc, "allowPrivilegeEscalation", "bool") +
         ", ProcMount:" + sec_ptr(sc, "procMount", "core.ProcMountType") +
         ", SeccompProfile:" + sec_ptr(sc, "seccompProfile", "core.SeccompProfile") +
         ", AppArmorProfile:" + sec_ptr(sc, "appArmorProfile", "core.AppArmorProfile") + "}";
}

// validateSeccompProfileField.
void sec_seccomp(const Json& sp, const std::string& at, std::vector<Cause>& out) {
  if (sp.is_null()) return;
  const std::string type = text_of(sp, "type");
  if (type.empty()) {
    out.push_back(field_required(at + ".type", "type is required when seccompProfile is set"));
  } else if (type != "Localhost" && type != "RuntimeDefault" && type != "Unconfined") {
    out.push_back(
        field_not_supported(at + ".type", type, {"Localhost", "RuntimeDefault", "Unconfined"}));
  }
  const Json& local = member_or_null(sp, "localhostProfile");
  if (type == "Localhost") {
    if (local.is_null()) {
      out.push_back(
          field_required(at + ".localhostProfile", "must be set when seccomp type is Localhost"));
    } else {
      local_descending_path_rules(local.is_string() ? local.get<std::string>() : "",
                                  at + ".localhostProfile", out);
    }
  } else if (!local.is_null()) {
    out.push_back(field_invalid_raw(at + ".localhostProfile",
                                    "core.SeccompProfile{Type:" + render_value(type) +
                                        ", LocalhostProfile:(*string)(" + kGoPointer + ")}",
                                    "can only be set when seccomp type is Localhost"));
  }
}

// ValidateAppArmorProfileField.
void sec_apparmor(const Json& p, const std::string& at, std::vector<Cause>& out) {
  if (p.is_null()) return;
  const std::string type = text_of(p, "type");
  const Json& local = member_or_null(p, "localhostProfile");
  if (type == "Localhost") {
    const std::string text = local.is_string() ? local.get<std::string>() : "";
    const auto first = text.find_first_not_of(" \t\n\v\f\r");
    const auto last = text.find_last_not_of(" \t\n\v\f\r");
    const bool padded = first != std::string::npos && (first != 0 || last != text.size() - 1);
    if (local.is_null() || (!padded && first == std::string::npos)) {
      out.push_back(
          field_required(at + ".localhostProfile", "must be set when AppArmor type is Localhost"));
    } else if (padded) {
      out.push_back(
          field_invalid(at + ".localhostProfile", text, "must not be padded with whitespace"));
    }
  } else if (type == "RuntimeDefault" || type == "Unconfined") {
    if (!local.is_null()) {
      out.push_back(field_invalid(at + ".localhostProfile", local,
                                  "can only be set when AppArmor type is Localhost"));
    }
  } else if (type.empty()) {
    out.push_back(field_required(at + ".type", "type is required when appArmorProfile is set"));
  } else {
    out.push_back(
        field_not_supported(at + ".type", type, {"Localhost", "RuntimeDefault", "Unconfined"}));
  }
}

// validateSysctls, with ValidateHostSysctl for the net and IPC namespaces.
void sec_sysctls(const Json& spec, const Json& sysctls, const std::string& at,
                 std::vector<Cause>& out) {
  static const std::regex kName(
      "([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?");
  std::set<std::string> names;
  for (std::size_t i = 0; sysctls.is_array() && i < sysctls.size(); ++i) {
    const std::string name = text_of(object_or_empty(sysctls[i]), "name");
    const std::string name_at = indexed(at, i) + ".name";
    if (name.empty()) {
      out.push_back(field_required(name_at));
    } else if (name.size() > 253 || !std::regex_match(name, kName)) {
      out.push_back(field_invalid(name_at, name,
                                  "must have at most 253 characters and match regex "
                                  "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*["
                                  "a-z0-9])?$"));
    } else if (names.contains(name)) {
      out.push_back(field_duplicate_raw(name_at, render_value(name)));
    }
    std::string n = name;
    std::replace(n.begin(), n.end(), '/', '.');
    const bool net = n.starts_with("net.");
    const bool ipc = n == "kernel.sem" || n.starts_with("kernel.shm") ||
                     n.starts_with("kernel.msg") || n.starts_with("fs.mqueue.");
    if (net && member_or_null(spec, "hostNetwork") == true) {
      out.push_back(
          field_invalid(name_at, name, "may not be specified when 'hostNetwork' is true"));
    } else if (ipc && member_or_null(spec, "hostIPC") == true) {
      out.push_back(field_invalid(name_at, name, "may not be specified when 'hostIPC' is true"));
    }
    names.insert(name);
  }
}

void sec_pod_security(const Json& spec, const std::string& at, std::vector<Cause>& out) {
  const Json& sc = member_or_null(spec, "securityContext");
  if (!sc.is_object()) return;
  sec_id_rule(sc, "fsGroup", at, out);
  sec_id_rule(sc, "runAsUser", at, out);
  sec_id_rule(sc, "runAsGroup", at, out);
  const Json& groups = member_or_null(sc, "supplementalGroups");
  for (std::size_t i = 0; groups.is_array() && i < groups.size(); ++i) {
    const Json& g = groups[i];
    if (g.is_number_integer() && (g.get<long long>() < 0 || g.get<long long>() > 2147483647)) {
      out.push_back(field_invalid(indexed(at + ".supplementalGroups", i), g, kIdRange));
    }
  }
  if (member_or_null(spec, "shareProcessNamespace") == true &&
      member_or_null(spec, "hostPID") == true) {
    out.push_back(field_invalid(at + ".shareProcessNamespace", true,
                                "ShareProcessNamespace and HostPID cannot both be enabled"));
  }
  sec_sysctls(spec, member_or_null(sc, "sysctls"), at + ".sysctls", out);
  const Json& change = member_or_null(sc, "fsGroupChangePolicy");
  if (change.is_string() && change != "Always" && change != "OnRootMismatch") {
    out.push_back(
        field_not_supported(at + ".fsGroupChangePolicy", change, {"Always", "OnRootMismatch"}));
  }
  sec_seccomp(member_or_null(sc, "seccompProfile"), at + ".seccompProfile", out);
  sec_apparmor(member_or_null(sc, "appArmorProfile"), at + ".appArmorProfile", out);
}

// ValidateNodeSelectorTerm (values checked unless `any_values`, as for preferred terms).

}  // namespace

void container_security_rules(const Json& sc, bool host_users, const std::string& at,
                              std::vector<Cause>& out) {
  if (!sc.is_object()) return;
  sec_id_rule(sc, "runAsUser", at, out);
  sec_id_rule(sc, "runAsGroup", at, out);
  const Json& proc = member_or_null(sc, "procMount");
  if (proc.is_string()) {
    if (proc != "Default" && proc != "Unmasked") {
      out.push_back(field_not_supported(at + ".procMount", proc, {"Default", "Unmasked"}));
    }
    if (host_users && proc == "Unmasked") {
      out.push_back(
          field_invalid(at + ".procMount", proc, "`hostUsers` must be false to use `Unmasked`"));
    }
  }
  sec_seccomp(member_or_null(sc, "seccompProfile"), at + ".seccompProfile", out);
  if (member_or_null(sc, "allowPrivilegeEscalation") == false) {
    if (member_or_null(sc, "privileged") == true) {
      out.push_back(field_invalid_raw(
          at, sec_go_security_context(sc),
          "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"));
    }
    const Json& add = member_or_null(member_or_null(sc, "capabilities"), "add");
    for (std::size_t i = 0; add.is_array() && i < add.size(); ++i) {
      if (add[i] == "CAP_SYS_ADMIN") {
        out.push_back(field_invalid_raw(
            at, sec_go_security_context(sc),
            "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"));
      }
    }
  }
  sec_apparmor(member_or_null(sc, "appArmorProfile"), at + ".appArmorProfile", out);
}

void pod_security_rules(const Json& spec, const std::string& at, std::vector<Cause>& out) {
  sec_pod_security(spec, at, out);
}

void pod_os_rules(const Json& spec, const std::string& at, std::vector<Cause>& out) {
  const Json& os = member_or_null(spec, "os");
  if (os.is_null()) return;
  const std::string name = text_of(os, "name");
  if (name.empty()) {
    out.push_back(field_required(at + ".os.name", "cannot be empty"));
    return;
  }
  if (name != "linux" && name != "windows") {
    out.push_back(field_not_supported(at + ".os", name, {"linux", "windows"}));
    return;
  }
  const Json& sc = member_or_null(spec, "securityContext");
  const bool windows = name == "windows";
  const char* kWindows = "cannot be set for a windows pod";
  if (!windows && !member_or_null(sc, "windowsOptions").is_null()) {
    out.push_back(field_forbidden(at + ".securityContext.windowsOptions",
                                  "windows options cannot be set for a linux pod"));
  }
  if (windows && sc.is_object()) {
    auto forbid = [&](const Json& holder, const char* key, const std::string& path) {
      const Json& v = member_or_null(holder, key);
      const bool set = key == std::string("hostPID") || key == std::string("hostIPC")
                           ? v == true
                           : !v.is_null() && !(key == std::string("sysctls") && v.empty());
      if (set) out.push_back(field_forbidden(path, kWindows));
    };
    const std::string sc_at = at + ".securityContext";
    forbid(sc, "appArmorProfile", sc_at + ".appArmorProfile");
    forbid(sc, "seLinuxOptions", sc_at + ".seLinuxOptions");
    forbid(spec, "hostUsers", at + ".hostUsers");
    forbid(spec, "hostPID", at + ".hostPID");
    forbid(spec, "hostIPC", at + ".hostIPC");
    forbid(sc, "seccompProfile", sc_at + ".seccompProfile");
    forbid(sc, "fsGroup", sc_at + ".fsGroup");
    forbid(sc, "fsGroupChangePolicy", sc_at + ".fsGroupChangePolicy");
    forbid(sc, "sysctls", sc_at + ".sysctls");
    forbid(spec, "shareProcessNamespace", at + ".shareProcessNamespace");
    forbid(sc, "runAsUser", sc_at + ".runAsUser");
    forbid(sc, "runAsGroup", sc_at + ".runAsGroup");
    forbid(sc, "supplementalGroups", sc_at + ".supplementalGroups");
    forbid(sc, "supplementalGroupsPolicy", sc_at + ".supplementalGroupsPolicy");
    forbid(sc, "seLinuxChangePolicy", sc_at + ".seLinuxChangePolicy");
  }
  // podshelper.VisitContainersWithPath: init containers, containers, ephemeral containers.
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const Json& containers = member_or_null(spec, list);
    for (std::size_t i = 0; containers.is_array() && i < containers.size(); ++i) {
      const Json& csc = member_or_null(containers[i], "securityContext");
      if (!csc.is_object()) continue;
      const std::string c_at = indexed(at + "." + list, i) + ".securityContext";
      if (!windows) {
        if (!member_or_null(csc, "windowsOptions").is_null()) {
          out.push_back(field_forbidden(c_at + ".windowsOptions",
                                        "windows options cannot be set for a linux pod"));
        }
        continue;
      }
      for (const char* key : {"appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                              "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation",
                              "procMount", "runAsUser", "runAsGroup"}) {
        if (!member_or_null(csc, key).is_null())
          out.push_back(field_forbidden(c_at + "." + key, kWindows));
      }
    }
  }
}

}  // namespace respool::sandbox::kinds
