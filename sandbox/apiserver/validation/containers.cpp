// Containers as validateContainers / validateInitContainers / validateContainerCommon
// (pkg/apis/core/validation, v1.32) check them: name, image, policies, ports, env and envFrom
// (the relaxed names of RelaxedEnvironmentVariableValidation, on by default in 1.32), mounts,
// resources, security context, probes and lifecycle handlers, and host ports.

#include <regex>

#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

const char* kPortNumRange = "must be between 1 and 65535, inclusive";

// validateContainerPorts.
void ctr_port_rules(const Json& ports, const std::string& at, std::vector<Cause>& out) {
  std::set<std::string> names;
  for (std::size_t i = 0; ports.is_array() && i < ports.size(); ++i) {
    const Json& p = object_or_empty(ports[i]);
    const std::string p_at = indexed(at, i);
    const std::string name = text_of(p, "name");
    if (!name.empty()) {
      auto errs = check_port_name(name);
      for (const std::string& msg : errs)
        out.push_back(field_invalid(p_at + ".name", name, msg));
      if (errs.empty() && !names.insert(name).second) {
        out.push_back(field_duplicate_raw(p_at + ".name", render_value(name)));
      }
    }
    const Json& port = member_or_null(p, "containerPort");
    const long long number = port.is_number_integer() ? port.get<long long>() : 0;
    if (number == 0) {
      out.push_back(field_required(p_at + ".containerPort"));
    } else if (number < 1 || number > 65535) {
      out.push_back(field_invalid(p_at + ".containerPort", number, kPortNumRange));
    }
    const Json& host = member_or_null(p, "hostPort");
    if (host.is_number_integer() && host != 0 &&
        (host.get<long long>() < 1 || host.get<long long>() > 65535)) {
      out.push_back(field_invalid(p_at + ".hostPort", host, kPortNumRange));
    }
    const std::string protocol = text_of(p, "protocol");
    if (protocol.empty()) {
      out.push_back(field_required(p_at + ".protocol"));
    } else if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
      out.push_back(field_not_supported(p_at + ".protocol", protocol, {"SCTP", "TCP", "UDP"}));
    }
  }
}

// validation.IsRelaxedEnvVarName: printable ASCII except '='.
bool ctr_relaxed_env_name(const std::string& name) {
  for (unsigned char ch : name) {
    if (ch < 0x20 || ch > 0x7e || ch == '=') return false;
  }
  return true;
}
const char* kEnvNameMsg =
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='";

// validateConfigMapKeySelector / validateSecretKeySelector (names as ValidateSecretName).
void ctr_key_selector(const Json& ref, const std::string& at, std::vector<Cause>& out) {
  const std::string name = text_of(ref, "name");
  if (auto e = check_dns_subdomain(name)) out.push_back(field_invalid(at + ".name", name, *e));
  const std::string key = text_of(ref, "key");
  if (key.empty()) {
    out.push_back(field_required(at + ".key"));
  } else {
    for (const std::string& msg : check_config_map_key(key))
      out.push_back(field_invalid(at + ".key", key, msg));
  }
}

// ValidateEnv with validateEnvVarValueFrom.
void ctr_env_rules(const Json& env, const std::string& at, std::vector<Cause>& out) {
  for (std::size_t i = 0; env.is_array() && i < env.size(); ++i) {
    const Json& e = object_or_empty(env[i]);
    const std::string e_at = indexed(at, i);
    const std::string name = text_of(e, "name");
    if (name.empty()) {
      out.push_back(field_required(e_at + ".name"));
    } else if (!ctr_relaxed_env_name(name)) {
      out.push_back(field_invalid(e_at + ".name", name, kEnvNameMsg));
    }
    const Json& from = member_or_null(e, "valueFrom");
    if (from.is_null()) continue;
    const std::string from_at = e_at + ".valueFrom";
    int sources = 0;
    if (!member_or_null(from, "fieldRef").is_null()) {
      ++sources;
      object_field_selector_rules(object_or_empty(from["fieldRef"]), false, from_at + ".fieldRef",
                                  out);
    }
    if (!member_or_null(from, "resourceFieldRef").is_null()) {
      ++sources;
      resource_field_selector_rules(object_or_empty(from["resourceFieldRef"]), false,
                                    from_at + ".resourceFieldRef", out);
    }
    for (const char* key : {"configMapKeyRef", "secretKeyRef"}) {
      if (member_or_null(from, key).is_null()) continue;
      ++sources;
      ctr_key_selector(object_or_empty(from[key]), from_at + "." + key, out);
    }
    if (sources == 0) {
      out.push_back(field_invalid(from_at, "",
                                  "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                  "`configMapKeyRef` or `secretKeyRef`"));
    } else if (!text_of(e, "value").empty()) {
      out.push_back(field_invalid(from_at, "", "may not be specified when `value` is not empty"));
    } else if (sources > 1) {
      out.push_back(
          field_invalid(from_at, "", "may not have more than one field specified at a time"));
    }
  }
}

// ValidateEnvFrom: a missing source is reported at the list, as the real server does.
void ctr_env_from_rules(const Json& env_from, const std::string& at, std::vector<Cause>& out) {
  for (std::size_t i = 0; env_from.is_array() && i < env_from.size(); ++i) {
    const Json& e = object_or_empty(env_from[i]);
    const std::string e_at = indexed(at, i);
    const std::string prefix = text_of(e, "prefix");
    if (!prefix.empty() && !ctr_relaxed_env_name(prefix)) {
      out.push_back(field_invalid(e_at + ".prefix", prefix, kEnvNameMsg));
    }
    int sources = 0;
    for (const char* key : {"configMapRef", "secretRef"}) {
      if (member_or_null(e, key).is_null()) continue;
      ++sources;
      const std::string name = text_of(object_or_empty(e[key]), "name");
      const std::string name_at = e_at + "." + key + ".name";
      // Validate...Name(name, prefix=true): a trailing '-' is allowed.
      std::string masked = name;
      if (!masked.empty() && masked.back() == '-') masked.back() = 'a';
      if (name.empty()) {
        out.push_back(field_required(name_at));
      } else if (auto msg = check_dns_subdomain(masked)) {
        out.push_back(field_invalid(name_at, name, *msg));
      }
    }
    if (sources == 0) {
      out.push_back(field_invalid(at, "", "must specify one of: `configMapRef` or `secretRef`"));
    } else if (sources > 1) {
      out.push_back(field_invalid(at, "", "may not have more than one field specified at a time"));
    }
  }
}

// ValidatePortNumOrName; a missing port is the IntOrString zero value, the number 0.
void ctr_port_num_or_name(const Json& port, const std::string& at, std::vector<Cause>& out) {
  if (port.is_string()) {
    for (const std::string& msg : check_port_name(port.get<std::string>()))
      out.push_back(field_invalid(at, port, msg));
    return;
  }
  const long long n = port.is_number_integer() ? port.get<long long>() : 0;
  if (n < 1 || n > 65535) out.push_back(field_invalid(at, n, kPortNumRange));
}

// validateHandler over the kinds a probe (exec, httpGet, tcpSocket, grpc) or a lifecycle
// hook (exec, httpGet, tcpSocket, sleep) has.
void ctr_handler_rules(const Json& h, bool lifecycle, long long grace, const std::string& at,
                       std::vector<Cause>& out) {
  int handlers = 0;
  auto take = [&](const char* key) {
    if (member_or_null(h, key).is_null()) return false;
    if (handlers++ > 0) {
      out.push_back(field_forbidden(at + "." + key, "may not specify more than 1 handler type"));
      return false;
    }
    return true;
  };
  if (take("exec")) {
    const Json& command = member_or_null(object_or_empty(h["exec"]), "command");
    if (!command.is_array() || command.empty()) out.push_back(field_required(at + ".exec.command"));
  }
  if (take("httpGet")) {
    const Json& get = object_or_empty(h["httpGet"]);
    const Json& path = member_or_null(get, "path");  // defaulted to "/"
    if (path.is_string() && path.get<std::string>().empty()) {
      out.push_back(field_required(at + ".httpGet.path"));
    }
    ctr_port_num_or_name(member_or_null(get, "port"), at + ".httpGet.port", out);
    const Json& scheme = member_or_null(get, "scheme");  // defaulted to HTTP
    if (scheme.is_string() && scheme != "HTTP" && scheme != "HTTPS") {
      out.push_back(field_not_supported(at + ".httpGet.scheme", scheme, {"HTTP", "HTTPS"}));
    }
    static const std::regex kHeader("[-A-Za-z0-9]+");
    const Json& headers = member_or_null(get, "httpHeaders");
    for (std::size_t i = 0; headers.is_array() && i < headers.size(); ++i) {
      const std::string name = text_of(object_or_empty(headers[i]), "name");
      if (!std::regex_match(name, kHeader)) {
        out.push_back(field_invalid(
            at + ".httpGet.httpHeaders", name,
            "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. "
            "'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"));
      }
    }
  }
  if (take("tcpSocket")) {
    ctr_port_num_or_name(member_or_null(object_or_empty(h["tcpSocket"]), "port"),
                         at + ".tcpSocket.port", out);
  }
  if (!lifecycle && take("grpc")) {
    ctr_port_num_or_name(member_or_null(object_or_empty(h["grpc"]), "port"), at + ".grpc.port",
                         out);
  }
  if (lifecycle && take("sleep")) {
    const Json& seconds = member_or_null(object_or_empty(h["sleep"]), "seconds");
    const long long s = seconds.is_number_integer() ? seconds.get<long long>() : 0;
    if (s <= 0 || s > grace) {
      out.push_back(field_invalid(
          at + ".sleep", s,
          "must be greater than 0 and less than terminationGracePeriodSeconds (" +
              std::to_string(grace) +
              "). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."));
    }
  }
  if (handlers == 0) out.push_back(field_required(at, "must specify a handler type"));
}

// validateProbe + the liveness/readiness/startup specifics. Zero counts are defaulted (period
// 10, timeout 1, success 1, failure 3) before validation, so only set values are checked.
void ctr_probe_rules(const Json& probe, const char* kind, long long grace, const std::string& at,
                     std::vector<Cause>& out) {
  if (probe.is_null()) return;
  ctr_handler_rules(probe, false, grace, at, out);
  for (const char* key : {"initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                          "successThreshold", "failureThreshold"}) {
    non_negative(probe, key, at, out);
  }
  const Json& probe_grace = member_or_null(probe, "terminationGracePeriodSeconds");
  if (probe_grace.is_number_integer() && probe_grace.get<long long>() <= 0) {
    out.push_back(field_invalid(at + ".terminationGracePeriodSeconds", probe_grace,
                                "must be greater than 0"));
  }
  const std::string which = kind;
  const Json& success = member_or_null(probe, "successThreshold");
  if (which != "readinessProbe" && success.is_number_integer() && success != 0 && success != 1) {
    out.push_back(field_invalid(at + ".successThreshold", success, "must be 1"));
  }
  if (which == "readinessProbe" && !probe_grace.is_null()) {
    out.push_back(field_invalid(at + ".terminationGracePeriodSeconds", probe_grace,
                                "must not be set for readinessProbes"));
  }
}

void ctr_lifecycle_and_probes(const Json& c, long long grace, const std::string& at,
                              std::vector<Cause>& out) {
  const Json& lifecycle = member_or_null(c, "lifecycle");
  for (const char* hook : {"postStart", "preStop"}) {
    const Json& h = member_or_null(lifecycle, hook);
    if (!h.is_null()) ctr_handler_rules(h, true, grace, at + ".lifecycle." + hook, out);
  }
  for (const char* kind : {"livenessProbe", "readinessProbe", "startupProbe"}) {
    ctr_probe_rules(member_or_null(c, kind), kind, grace, at + "." + kind, out);
  }
}

// validateContainerCommon.
void ctr_common_rules(const Json& c, const PodVolumes& volumes, bool host_users,
                      const std::string& at, std::vector<Cause>& out) {
  const std::string name = text_of(c, "name");
  if (name.empty()) {
    out.push_back(field_required(at + ".name"));
  } else if (auto e = check_dns_label(name)) {
    out.push_back(field_invalid(at + ".name", name, *e));
  }
  if (text_of(c, "image").empty()) out.push_back(field_required(at + ".image"));
  const std::string message_policy = text_of(c, "terminationMessagePolicy");
  if (!message_policy.empty() && message_policy != "File" &&
      message_policy != "FallbackToLogsOnError") {
    out.push_back(field_not_supported(at + ".terminationMessagePolicy", message_policy,
                                      {"File", "FallbackToLogsOnError"}));
  }
  ctr_port_rules(member_or_null(c, "ports"), at + ".ports", out);
  ctr_env_rules(member_or_null(c, "env"), at + ".env", out);
  ctr_env_from_rules(member_or_null(c, "envFrom"), at + ".envFrom", out);
  volume_mount_rules(c, volumes, at, out);
  volume_device_rules(c, volumes, at, out);
  const std::string pull = text_of(c, "imagePullPolicy");
  if (!pull.empty() && pull != "Always" && pull != "IfNotPresent" && pull != "Never") {
    out.push_back(
        field_not_supported(at + ".imagePullPolicy", pull, {"Always", "IfNotPresent", "Never"}));
  }
  if (c.contains("resources")) {
    container_resource_rules(object_or_empty(c["resources"]), at + ".resources", out);
  }
  container_security_rules(member_or_null(c, "securityContext"), host_users,
                           at + ".securityContext", out);
}

// AccumulateUniqueHostPorts: "<protocol>/<hostIP>/<port>" once per list.
void ctr_host_ports(const Json& containers, std::size_t first, std::size_t count,
                    const std::string& at, std::vector<Cause>& out) {
  std::set<std::string> seen;
  for (std::size_t ci = 0; ci < count; ++ci) {
    const Json& ports = member_or_null(object_or_empty(containers[first + ci]), "ports");
    for (std::size_t pi = 0; ports.is_array() && pi < ports.size(); ++pi) {
      const Json& p = object_or_empty(ports[pi]);
      const Json& host = member_or_null(p, "hostPort");
      if (!host.is_number_integer() || host == 0) continue;
      std::string key = text_of(p, "protocol") + "/" + text_of(p, "hostIP") + "/" +
                        std::to_string(host.get<long long>());
      if (!seen.insert(key).second) {
        out.push_back(field_duplicate_raw(indexed(indexed(at, ci) + ".ports", pi) + ".hostPort",
                                          render_value(key)));
      }
    }
  }
}

}  // namespace

void container_list_rules(const Json& spec, const PodVolumes& volumes, const std::string& at,
                          std::vector<Cause>& out) {
  const Json& grace_v = member_or_null(spec, "terminationGracePeriodSeconds");
  const long long grace = grace_v.is_number_integer() ? grace_v.get<long long>() : 30;
  const bool host_users = member_or_null(spec, "hostUsers") != false;
  const Json& containers = member_or_null(spec, "containers");
  std::set<std::string> names;
  if (!containers.is_array() || containers.empty()) {
    out.push_back(field_required(at + ".containers"));
  } else {
    for (std::size_t i = 0; i < containers.size(); ++i) {
      const std::string path = indexed(at + ".containers", i);
      const Json& c = object_or_empty(containers[i]);
      ctr_common_rules(c, volumes, host_users, path, out);
      if (!names.insert(text_of(c, "name")).second) {
        out.push_back(field_duplicate_raw(path + ".name", render_value(text_of(c, "name"))));
      }
      ctr_lifecycle_and_probes(c, grace, path, out);
      if (!member_or_null(c, "restartPolicy").is_null()) {
        out.push_back(
            field_forbidden(path + ".restartPolicy", "may not be set for non-init containers"));
      }
    }
    ctr_host_ports(containers, 0, containers.size(), at + ".containers", out);
  }
  const Json& init = member_or_null(spec, "initContainers");
  for (std::size_t i = 0; init.is_array() && i < init.size(); ++i) {
    const std::string path = indexed(at + ".initContainers", i);
    const Json& c = object_or_empty(init[i]);
    ctr_common_rules(c, volumes, host_users, path, out);
    const Json& restart = member_or_null(c, "restartPolicy");
    if (restart.is_string() && restart != "Always") {
      out.push_back(field_not_supported(path + ".restartPolicy", restart, {"Always"}));
    }
    const std::string name = text_of(c, "name");
    if (names.contains(name)) {
      out.push_back(field_duplicate_raw(path + ".name", render_value(name)));
    } else if (!name.empty()) {
      names.insert(name);
    }
    // Init containers run one by one: each is checked alone, at index 0 as the real server has.
    ctr_host_ports(init, i, 1, at + ".initContainers", out);
    if (restart == "Always") {
      ctr_lifecycle_and_probes(c, grace, path, out);
      continue;
    }
    for (const char* key : {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"}) {
      if (!member_or_null(c, key).is_null()) {
        out.push_back(field_forbidden(path + "." + key,
                                      "may not be set for init containers without "
                                      "restartPolicy=Always"));
      }
    }
  }
}

}  // namespace respool::sandbox::kinds
