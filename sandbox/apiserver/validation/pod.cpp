// Pod spec validation (ValidatePodSpec, validateResourceRequirements, ValidateTolerations in
// pkg/apis/core/validation) for Pods and pod templates; its parts are in the files
// validation/pod.hpp names. See sandbox/README.md for what is left out.

#include <set>

#include "apimachinery/quantity.hpp"
#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

std::string quantity_text(const Json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_number() ? v.dump() : "";
}

std::optional<apimachinery::Quantity> quantity_of(const Json& v) {
  auto q = apimachinery::Quantity::parse(quantity_text(v));
  if (!q) return std::nullopt;
  return *q;
}

// helper.IsNativeResource / IsOvercommitAllowed: native names have no domain or a
// kubernetes.io one; extended resources and hugepages may not be overcommitted.
bool overcommit_allowed(const std::string& name) {
  bool native =
      name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos;
  return native && !name.starts_with("hugepages-");
}

// helper.IsExtendedResourceName: not native, not "requests.*", and "requests.<name>" a
// qualified name. Their quantities must be whole numbers (IsIntegerResourceName).
bool extended_resource(const std::string& name) {
  if (name.find('/') == std::string::npos || name.find("kubernetes.io/") != std::string::npos ||
      name.starts_with("requests.")) {
    return false;
  }
  return check_qualified_name("requests." + name).empty();
}

bool standard_container_resource(const std::string& name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
         name.starts_with("hugepages-");
}

// helper.IsStandardResourceName: the names quotas and containers know.
bool standard_resource(const std::string& name) {
  static const std::set<std::string> kNames = {"cpu",
                                               "memory",
                                               "ephemeral-storage",
                                               "requests.cpu",
                                               "requests.memory",
                                               "requests.ephemeral-storage",
                                               "limits.cpu",
                                               "limits.memory",
                                               "limits.ephemeral-storage",
                                               "pods",
                                               "services",
                                               "replicationcontrollers",
                                               "resourcequotas",
                                               "secrets",
                                               "persistentvolumeclaims",
                                               "requests.storage",
                                               "configmaps",
                                               "services.nodeports",
                                               "services.loadbalancers"};
  return kNames.contains(name) || name.starts_with("hugepages-") ||
         name.starts_with("requests.hugepages-");
}

// validateContainerResourceName.
void resource_name_rules(const std::string& name, const std::string& at, std::vector<Cause>& out) {
  for (const std::string& msg : check_qualified_name(name))
    out.push_back(field_invalid(at, name, msg));
  if (name.find('/') != std::string::npos) {
    if (name.find("kubernetes.io/") == std::string::npos && !extended_resource(name)) {
      out.push_back(field_invalid(at, name, "doesn't follow extended resource name standard"));
    }
    return;
  }
  if (!standard_resource(name)) {
    out.push_back(field_invalid(at, name, "must be a standard resource type or fully qualified"));
  }
  if (!standard_container_resource(name)) {
    out.push_back(field_invalid(at, name, "must be a standard resource for containers"));
  }
}

}  // namespace

// validateResourceRequirements (Go walks the maps in random order; here names come sorted).
void container_resource_rules(const Json& resources, const std::string& at,
                              std::vector<Cause>& out) {
  const Json limits = object_or_empty(member_or_null(resources, "limits"));
  const Json requests = object_or_empty(member_or_null(resources, "requests"));
  const std::string lim_at = at + ".limits";
  const std::string req_at = at + ".requests";
  bool cpu_or_memory = false;
  bool huge_pages = false;
  // Name and quantity rules of one entry (limits or requests), hugepages divisibility last.
  auto value_rules = [&](const std::string& name, const Json& v, const std::string& key_at) {
    resource_name_rules(name, key_at, out);
    auto q = quantity_of(v);
    if (q && q->milli() < 0) {
      out.push_back(field_invalid(key_at, q->to_string(), "must be greater than or equal to 0"));
    }
    if (q && extended_resource(name) && q->milli() % 1000 != 0) {
      out.push_back(field_invalid_raw(key_at, go_quantity(quantity_text(v)), "must be an integer"));
    }
    cpu_or_memory = cpu_or_memory || name == "cpu" || name == "memory";
    return q;
  };
  // validateResourceQuantityHugePageValue: a whole number of pages of the size the name gives.
  auto huge_page_rule = [&](const std::string& name, const std::optional<apimachinery::Quantity>& q,
                            const std::string& key_at) {
    if (!name.starts_with("hugepages-")) return;
    huge_pages = true;
    auto page = apimachinery::Quantity::parse(name.substr(10));
    const bool divisible = q && page && page->milli() > 0 && page->milli() % 1000 == 0 &&
                           q->value() % page->value() == 0;
    if (q && !divisible) {
      out.push_back(field_invalid(key_at, q->to_string(),
                                  q->to_string() + " is not positive integer multiple of " + name));
    }
  };
  for (auto it = limits.begin(); it != limits.end(); ++it) {
    const std::string key_at = lim_at + "[" + it.key() + "]";
    huge_page_rule(it.key(), value_rules(it.key(), it.value(), key_at), key_at);
  }
  for (auto it = requests.begin(); it != requests.end(); ++it) {
    const std::string& name = it.key();
    const std::string key_at = req_at + "[" + name + "]";
    auto q = value_rules(name, it.value(), key_at);
    auto limit = limits.contains(name) ? quantity_of(limits[name]) : std::nullopt;
    if (!limits.contains(name)) {
      if (!overcommit_allowed(name)) {
        out.push_back(field_required(lim_at, "Limit must be set for non overcommitable resources"));
      }
    } else if (q && limit && *q != *limit && !overcommit_allowed(name)) {
      out.push_back(field_invalid(req_at, q->to_string(),
                                  "must be equal to " + name + " limit of " + limit->to_string()));
    } else if (q && limit && *q > *limit) {
      out.push_back(field_invalid(
          req_at, q->to_string(),
          "must be less than or equal to " + name + " limit of " + limit->to_string()));
    }
    huge_page_rule(name, q, key_at);
  }
  if (huge_pages && !cpu_or_memory) {
    out.push_back(field_forbidden(at, "HugePages require cpu or memory"));
  }
}

namespace {

void policy_rule(const Json& spec, const char* key, const std::string& at,
                 const std::vector<std::string>& supported, std::vector<Cause>& out) {
  const std::string value = text_of(spec, key);
  const std::string path = at + "." + key;
  if (value.empty()) {
    out.push_back(field_required(path));
  } else if (std::find(supported.begin(), supported.end(), value) == supported.end()) {
    out.push_back(field_not_supported(path, value, supported));
  }
}

// ValidateTolerations.
void toleration_rules(const Json& tolerations, const std::string& at, std::vector<Cause>& out) {
  if (!tolerations.is_array()) return;
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    const Json& t = object_or_empty(tolerations[i]);
    const std::string path = at + "[" + std::to_string(i) + "]";
    const std::string key = text_of(t, "key");
    const std::string op = text_of(t, "operator");
    const std::string value = text_of(t, "value");
    const std::string effect = text_of(t, "effect");
    for (const std::string& msg :
         key.empty() ? std::vector<std::string>{} : check_qualified_name(key)) {
      out.push_back(field_invalid(path + ".key", key, msg));
    }
    if (key.empty() && op != "Exists") {
      out.push_back(field_invalid(path + ".operator", op,
                                  "operator must be Exists when `key` is empty, which means "
                                  "\"match all values and all keys\""));
    }
    if (!member_or_null(t, "tolerationSeconds").is_null() && effect != "NoExecute") {
      out.push_back(field_invalid(path + ".effect", effect,
                                  "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op == "Equal" || op.empty()) {
      if (auto errs = check_label_value(value); !errs.empty()) {
        std::string joined;
        for (const std::string& e : errs)
          joined += (joined.empty() ? "" : ";") + e;
        out.push_back(field_invalid(path + ".operator", value, joined));
      }
    } else if (op == "Exists") {
      if (!value.empty()) {
        out.push_back(field_invalid(path + ".operator", value,
                                    "value must be empty when `operator` is 'Exists'"));
      }
    } else {
      out.push_back(field_not_supported(path + ".operator", op, {"Equal", "Exists"}));
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" &&
        effect != "NoExecute") {
      out.push_back(field_not_supported(path + ".effect", effect,
                                        {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    }
  }
}

// validatePodHostNetworkDeps: with hostNetwork a container's hostPort is its containerPort
// (decoding sets a missing one to it).
void host_network_rules(const Json& spec, const std::string& at, std::vector<Cause>& out) {
  if (member_or_null(spec, "hostNetwork") != true) return;
  const Json containers = member_or_null(spec, "containers");
  for (std::size_t i = 0; containers.is_array() && i < containers.size(); ++i) {
    const Json ports = member_or_null(containers[i], "ports");
    for (std::size_t j = 0; ports.is_array() && j < ports.size(); ++j) {
      const Json host = member_or_null(ports[j], "hostPort");
      if (host.is_number_integer() && host != 0 &&
          host != member_or_null(ports[j], "containerPort")) {
        out.push_back(field_invalid(
            at + ".containers[" + std::to_string(i) + "].ports[" + std::to_string(j) + "].hostPort",
            host, "must match `containerPort` when `hostNetwork` is true"));
      }
    }
  }
}

}  // namespace

// %#v of an intstr.IntOrString (Type 0 is Int, 1 is String).
std::string go_int_or_string(const Json& v) {
  if (v.is_string()) {
    return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + render_value(v) + "}";
  }
  return "intstr.IntOrString{Type:0, IntVal:" +
         std::to_string(v.is_number_integer() ? v.get<long long>() : 0) + ", StrVal:\"\"}";
}

// ValidatePositiveIntOrPercent (+ IsNotMoreThan100Percent when at_most_100); the value (percent
// or int), 0 for a string that is no percentage.
long long int_or_percent_rules(const Json& v, const std::string& at, std::vector<Cause>& out,
                               bool at_most_100) {
  if (v.is_number_integer()) {
    long long n = v.get<long long>();
    if (n < 0) out.push_back(field_invalid(at, n, "must be greater than or equal to 0"));
    return n;
  }
  if (!v.is_string()) return 0;
  const std::string s = v.get<std::string>();
  bool percent =
      s.size() > 1 && s.back() == '%' && s.find_first_not_of("0123456789") == s.size() - 1;
  if (!percent) {
    out.push_back(field_invalid_raw(
        at, go_int_or_string(v),
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  "
        "or '93%', regex used for validation is '[0-9]+%')"));
    return 0;
  }
  long long n = std::stoll(s.substr(0, s.size() - 1));
  if (at_most_100 && n > 100)
    out.push_back(field_invalid_raw(at, go_int_or_string(v), "must not be greater than 100%"));
  return n;
}

void non_negative(const Json& spec, const char* key, const std::string& at,
                  std::vector<Cause>& out) {
  const Json v = member_or_null(spec, key);
  if (v.is_number_integer() && v.get<long long>() < 0) {
    out.push_back(field_invalid(at + "." + key, v, "must be greater than or equal to 0"));
  }
}

void validate_pod_spec(const Json& spec_in, const std::string& at, std::vector<Cause>& out) {
  const Json& spec = object_or_empty(spec_in);
  const PodVolumes volumes = volume_rules(member_or_null(spec, "volumes"), at + ".volumes", out);
  container_list_rules(spec, volumes, at, out);
  host_network_rules(spec, at, out);
  policy_rule(spec, "restartPolicy", at, {"Always", "OnFailure", "Never"}, out);
  policy_rule(spec, "dnsPolicy", at, {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"},
              out);
  pod_scheduling_rules(spec, at, out);
  auto subdomain_rule = [&](const char* key) {
    const std::string value = text_of(spec, key);
    if (value.empty()) return;
    if (auto e = check_dns_subdomain(value))
      out.push_back(field_invalid(at + "." + key, value, *e));
  };
  auto label_rule = [&](const char* key) {
    const std::string value = text_of(spec, key);
    if (value.empty()) return;
    if (auto e = check_dns_label(value)) out.push_back(field_invalid(at + "." + key, value, *e));
  };
  subdomain_rule("serviceAccountName");
  subdomain_rule("nodeName");
  const Json deadline = member_or_null(spec, "activeDeadlineSeconds");
  if (deadline.is_number_integer() &&
      (deadline.get<long long>() < 1 || deadline.get<long long>() > 2147483647)) {
    out.push_back(field_invalid(at + ".activeDeadlineSeconds", deadline,
                                "must be between 1 and 2147483647, inclusive"));
  }
  label_rule("hostname");
  label_rule("subdomain");
  toleration_rules(member_or_null(spec, "tolerations"), at + ".tolerations", out);
  pod_host_alias_rules(spec, at + ".hostAliases", out);
  subdomain_rule("priorityClassName");
  const Json preemption = member_or_null(spec, "preemptionPolicy");
  if (preemption.is_string() && preemption != "PreemptLowerPriority" && preemption != "Never") {
    out.push_back(field_not_supported(at + ".preemptionPolicy", preemption,
                                      {"PreemptLowerPriority", "Never"}));
  }
  pod_os_rules(spec, at, out);
}

}  // namespace respool::sandbox::kinds
