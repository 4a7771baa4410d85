// Services as pkg/apis/core/validation (v1.32) validates them (ValidateService,
// ValidateServiceUpdate): ports (numbers, names, protocols, target ports, duplicates), type
// dependent fields, cluster IPs and IP families, session affinity, traffic policies, and the
// cluster IPs an update may not change. Not checked: external IPs' special ranges, load
// balancer source ranges' CIDRs, the topology annotations.

#include <arpa/inet.h>

#include <regex>
#include <set>

#include "sandbox/apiserver/validation/rules.hpp"

namespace respool::sandbox::kinds {
namespace {

bool is_ipv4(const std::string& ip) {
  in_addr a{};
  return inet_pton(AF_INET, ip.c_str(), &a) == 1;
}

bool is_ipv6(const std::string& ip) {
  in6_addr a{};
  return inet_pton(AF_INET6, ip.c_str(), &a) == 1;
}

// validation.IsValidPortNum.
bool valid_port(const Json& v) {
  return v.is_number_integer() && v.get<long long>() >= 1 && v.get<long long>() <= 65535;
}

const char* kPortRange = "must be between 1 and 65535, inclusive";

std::vector<std::string> strings_of(const Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const Json& v : list)
    out.push_back(v.is_string() ? v.get<std::string>() : "");
  return out;
}

// %#v of a []string.
std::string service_go_strings(const std::vector<std::string>& list) {
  if (list.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (std::size_t i = 0; i < list.size(); ++i)
    out += (i ? ", " : "") + render_value(list[i]);
  return out + "}";
}

bool headless(const Json& spec) {
  auto ips = strings_of(member_or_null(spec, "clusterIPs"));
  return ips.size() == 1 && ips[0] == "None";
}

// validateServicePort.
void port_rules(const Json& port, const std::string& at, bool require_name,
                std::set<std::string>& names, std::vector<Cause>& out) {
  const std::string name = text_of(port, "name");
  if (require_name && name.empty()) {
    out.push_back(field_required(at + ".name"));
  } else if (!name.empty()) {
    if (auto bad = check_dns_label(name)) out.push_back(field_invalid(at + ".name", name, *bad));
    if (!names.insert(name).second)
      out.push_back(field_duplicate_raw(at + ".name", render_value(name)));
  }
  const Json& number = member_or_null(port, "port");
  if (!valid_port(number)) {
    out.push_back(field_invalid(at + ".port", number.is_number() ? number : Json(0), kPortRange));
  }
  const std::string protocol = text_of(port, "protocol");
  if (protocol.empty()) {
    out.push_back(field_required(at + ".protocol"));
  } else if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
    out.push_back(field_not_supported(at + ".protocol", protocol, {"SCTP", "TCP", "UDP"}));
  }
  const Json& target = member_or_null(port, "targetPort");
  if (target.is_string()) {
    for (const std::string& msg : check_port_name(target.get<std::string>()))
      out.push_back(field_invalid(at + ".targetPort", target, msg));
  } else if (!valid_port(target)) {
    out.push_back(
        field_invalid(at + ".targetPort", target.is_number() ? target : Json(0), kPortRange));
  }
  const Json& app = member_or_null(port, "appProtocol");
  if (app.is_string()) {
    for (const std::string& msg : check_qualified_name(app.get<std::string>()))
      out.push_back(field_invalid(at + ".appProtocol", app, msg));
  }
}

// %#v of the (protocol, port) key of a duplicated port: a core.ServicePort.
std::string go_port_key(const std::string& protocol, long long port) {
  return "core.ServicePort{Name:\"\", Protocol:" + render_value(protocol) +
         ", AppProtocol:(*string)(nil), Port:" + std::to_string(port) +
         ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}";
}

// ValidateServiceClusterIPsRelatedFields.
void cluster_ip_rules(const Json& spec, std::vector<Cause>& out) {
  if (text_of(spec, "type") == "ExternalName") return;
  const std::string ip = text_of(spec, "clusterIP");
  const auto ips = strings_of(member_or_null(spec, "clusterIPs"));
  const std::string at = "spec.clusterIPs";
  if (!ip.empty()) {
    if (ips.empty()) {
      out.push_back(field_required(at));
    } else if (ips[0] != ip) {
      out.push_back(
          field_invalid_raw(at, service_go_strings(ips), "first value must match `clusterIP`"));
    }
  } else if (!ips.empty()) {
    out.push_back(field_invalid_raw(at, service_go_strings(ips),
                                    "must be empty when `clusterIP` is not specified"));
  }
  const auto families = strings_of(member_or_null(spec, "ipFamilies"));
  std::set<std::string> seen;
  for (std::size_t i = 0; i < families.size(); ++i) {
    if (families[i] != "IPv4" && families[i] != "IPv6") {
      out.push_back(
          field_not_supported(indexed("spec.ipFamilies", i), families[i], {"IPv4", "IPv6"}));
    }
    if (!seen.insert(families[i]).second) {
      out.push_back(field_duplicate_raw(indexed("spec.ipFamilies", i), render_value(families[i])));
    }
  }
  const Json& policy = member_or_null(spec, "ipFamilyPolicy");
  if (policy.is_string() && policy != "SingleStack" && policy != "PreferDualStack" &&
      policy != "RequireDualStack") {
    out.push_back(field_not_supported("spec.ipFamilyPolicy", policy,
                                      {"PreferDualStack", "RequireDualStack", "SingleStack"}));
  }
  bool bad_ips = false;
  for (std::size_t i = 0; i < ips.size(); ++i) {
    if (i == 0 && ips[0] == "None") {
      if (ips.size() > 1) {
        bad_ips = true;
        out.push_back(field_invalid_raw(at, service_go_strings(ips),
                                        "'None' must be the first and only value"));
      }
      continue;
    }
    if (!is_ipv4(ips[i]) && !is_ipv6(ips[i])) {
      bad_ips = true;
      out.push_back(field_invalid(indexed(at, i), ips[i],
                                  "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
  }
  if (ips.size() > 2)
    out.push_back(field_invalid_raw(at, service_go_strings(ips), "may only hold up to 2 values"));
  if (bad_ips) return;
  if (ips.size() == 2 && is_ipv6(ips[0]) == is_ipv6(ips[1])) {
    out.push_back(field_invalid_raw(at, service_go_strings(ips),
                                    "may specify no more than one IP for each IP family"));
  }
  if (!headless(spec)) {
    for (std::size_t i = 0; i < ips.size() && i < families.size(); ++i) {
      if (families[i] == "IPv4" && is_ipv6(ips[i])) {
        out.push_back(field_invalid(
            indexed(at, i), ips[i],
            "expected an IPv4 value as indicated by `ipFamilies[" + std::to_string(i) + "]`"));
      }
      if (families[i] == "IPv6" && !is_ipv6(ips[i])) {
        out.push_back(field_invalid(
            indexed(at, i), ips[i],
            "expected an IPv6 value as indicated by `ipFamilies[" + std::to_string(i) + "]`"));
      }
    }
  }
}

void type_rules(const Json& spec, std::vector<Cause>& out) {
  const std::string type = text_of(spec, "type");
  if (type == "LoadBalancer" || type == "NodePort") {
    if (headless(spec)) {
      out.push_back(field_invalid("spec.clusterIPs[0]", "None",
                                  "may not be set to 'None' for " + type + " services"));
    }
  } else if (type == "ExternalName") {
    if (!strings_of(member_or_null(spec, "clusterIPs")).empty()) {
      out.push_back(field_forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
    }
    if (!strings_of(member_or_null(spec, "ipFamilies")).empty()) {
      out.push_back(field_forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
    }
    if (!member_or_null(spec, "ipFamilyPolicy").is_null()) {
      out.push_back(
          field_forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
    }
    std::string cname = text_of(spec, "externalName");
    if (!cname.empty() && cname.back() == '.') cname.pop_back();
    if (cname.empty()) {
      out.push_back(field_required("spec.externalName"));
    } else if (auto bad = check_dns_subdomain(cname)) {
      out.push_back(field_invalid("spec.externalName", cname, *bad));
    }
  }
}

void affinity_rules(const Json& spec, std::vector<Cause>& out) {
  const std::string affinity = text_of(spec, "sessionAffinity");
  if (affinity.empty()) {
    out.push_back(field_required("spec.sessionAffinity"));
  } else if (affinity != "ClientIP" && affinity != "None") {
    out.push_back(field_not_supported("spec.sessionAffinity", affinity, {"ClientIP", "None"}));
  }
  const Json& config = member_or_null(spec, "sessionAffinityConfig");
  if (affinity == "ClientIP") {
    const Json& timeout = member_or_null(member_or_null(config, "clientIP"), "timeoutSeconds");
    if (!config.is_object()) {
      out.push_back(
          field_required("spec.sessionAffinityConfig", "when session affinity type is ClientIP"));
    } else if (!member_or_null(config, "clientIP").is_object()) {
      out.push_back(field_required("spec.sessionAffinityConfig.clientIP",
                                   "when session affinity type is ClientIP"));
    } else if (timeout.is_null()) {
      out.push_back(field_required("spec.sessionAffinityConfig.clientIP.timeoutSeconds",
                                   "when session affinity type is ClientIP"));
    } else if (!timeout.is_number_integer() || timeout.get<long long>() <= 0 ||
               timeout.get<long long>() > 86400) {
      out.push_back(field_invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds",
                                  timeout.is_number() ? timeout : Json(0),
                                  "must be greater than 0 and less than 86400"));
    }
  } else if (affinity == "None" && !config.is_null()) {
    out.push_back(field_forbidden("spec.sessionAffinityConfig",
                                  "must not be set when session affinity is None"));
  }
}

void traffic_rules(const Json& spec, std::vector<Cause>& out) {
  const std::string type = text_of(spec, "type");
  const bool load_balancer = type == "LoadBalancer";
  const bool external = load_balancer || type == "NodePort";
  const std::string etp = text_of(spec, "externalTrafficPolicy");
  if (!external && !etp.empty()) {
    out.push_back(field_invalid("spec.externalTrafficPolicy", etp,
                                "may only be set for externally-accessible services"));
  } else if (external && etp.empty()) {
    out.push_back(field_required("spec.externalTrafficPolicy"));
  } else if (external && etp != "Cluster" && etp != "Local") {
    out.push_back(field_not_supported("spec.externalTrafficPolicy", etp, {"Cluster", "Local"}));
  }
  const Json& hc = member_or_null(spec, "healthCheckNodePort");
  const bool needs_hc = load_balancer && etp == "Local";
  const bool hc_set = hc.is_number_integer() && hc.get<long long>() != 0;
  if (!needs_hc && hc_set) {
    out.push_back(field_invalid("spec.healthCheckNodePort", hc,
                                "may only be set when `type` is 'LoadBalancer' and "
                                "`externalTrafficPolicy` is 'Local'"));
  } else if (needs_hc && !hc_set) {
    out.push_back(field_required("spec.healthCheckNodePort"));
  } else if (needs_hc && !valid_port(hc)) {
    out.push_back(field_invalid("spec.healthCheckNodePort", hc, kPortRange));
  }
  const Json& itp = member_or_null(spec, "internalTrafficPolicy");
  if (itp.is_null() && type != "ExternalName") {
    out.push_back(field_required("spec.internalTrafficPolicy"));
  } else if (itp.is_string() && itp != "Cluster" && itp != "Local") {
    out.push_back(field_not_supported("spec.internalTrafficPolicy", itp, {"Cluster", "Local"}));
  }
  const Json& distribution = member_or_null(spec, "trafficDistribution");
  if (distribution.is_string() && distribution != "PreferClose") {
    out.push_back(field_not_supported("spec.trafficDistribution", distribution, {"PreferClose"}));
  }
}

// ValidateServiceUpdate's cluster IP and IP family rules (validateUpgradeDowngrade*).
void update_rules(const Json& spec, const Json& before, std::vector<Cause>& out) {
  if (text_of(spec, "type") == "ExternalName" || text_of(before, "type") == "ExternalName") return;
  if (headless(spec) && headless(before)) return;
  const auto now = strings_of(member_or_null(spec, "clusterIPs"));
  const auto was = strings_of(member_or_null(before, "clusterIPs"));
  const std::string first = "spec.clusterIPs[0]";
  if (now.size() == was.size()) {
    for (std::size_t i = 0; i < was.size(); ++i) {
      if (was[i] != now[i]) {
        out.push_back(field_invalid_raw(indexed("spec.clusterIPs", i), service_go_strings(now),
                                        "may not change once set"));
      }
    }
  } else if (was.size() > now.size()) {
    if (now.empty()) {
      out.push_back(
          field_invalid_raw(first, service_go_strings(now), "primary clusterIP can not be unset"));
    } else if (now[0] != was[0]) {
      out.push_back(field_invalid_raw(first, service_go_strings(now), "may not change once set"));
    }
    if (now.size() == 1 && member_or_null(spec, "ipFamilyPolicy") != "SingleStack") {
      const Json& policy = member_or_null(spec, "ipFamilyPolicy");
      out.push_back(field_invalid("spec.ipFamilyPolicy", policy,
                                  "must be set to 'SingleStack' when releasing the secondary "
                                  "clusterIP"));
    }
  } else if (!was.empty() && now[0] != was[0]) {
    out.push_back(field_invalid_raw(first, service_go_strings(now), "may not change once set"));
  }
}

}  // namespace

void validate_service(const Json& obj, const Json* old, std::vector<Cause>& out) {
  const Json& spec = member_or_null(obj, "spec");
  if (old) update_rules(spec, member_or_null(*old, "spec"), out);
  const std::string type = text_of(spec, "type");
  const Json& ports = member_or_null(spec, "ports");
  const std::size_t count = ports.is_array() ? ports.size() : 0;
  if (count == 0 && !headless(spec) && type != "ExternalName") {
    out.push_back(field_required("spec.ports"));
  }
  type_rules(spec, out);
  std::set<std::string> names;
  for (std::size_t i = 0; i < count; ++i) {
    port_rules(ports[i], indexed("spec.ports", i), count > 1, names, out);
  }
  label_map_rules(member_or_null(spec, "selector"), "spec.selector", out);
  affinity_rules(spec, out);
  cluster_ip_rules(spec, out);
  for (std::size_t i = 0; member_or_null(spec, "externalIPs").is_array() &&
                          i < member_or_null(spec, "externalIPs").size();
       ++i) {
    const Json& ip = member_or_null(spec, "externalIPs")[i];
    const std::string text = ip.is_string() ? ip.get<std::string>() : "";
    if (!is_ipv4(text) && !is_ipv6(text)) {
      out.push_back(field_invalid(indexed("spec.externalIPs", i), text,
                                  "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
  }
  if (type.empty()) {
    out.push_back(field_required("spec.type"));
  } else if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" &&
             type != "ExternalName") {
    out.push_back(field_not_supported("spec.type", type,
                                      {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}));
  }
  std::set<std::pair<std::string, long long>> node_ports, keys;
  for (std::size_t i = 0; i < count; ++i) {
    const Json& p = ports[i];
    const std::string protocol = text_of(p, "protocol");
    const Json& node_port = member_or_null(p, "nodePort");
    const long long np = node_port.is_number_integer() ? node_port.get<long long>() : 0;
    if (type == "ClusterIP" && np != 0) {
      out.push_back(field_forbidden(indexed("spec.ports", i) + ".nodePort",
                                    "may not be used when `type` is 'ClusterIP'"));
    }
    if (np != 0 && !node_ports.insert({protocol, np}).second) {
      out.push_back(
          field_duplicate_raw(indexed("spec.ports", i) + ".nodePort", std::to_string(np)));
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    const Json& number = member_or_null(ports[i], "port");
    const long long port = number.is_number_integer() ? number.get<long long>() : 0;
    const std::string protocol = text_of(ports[i], "protocol");
    if (!keys.insert({protocol, port}).second) {
      out.push_back(field_duplicate_raw(indexed("spec.ports", i), go_port_key(protocol, port)));
    }
  }
  if (type != "LoadBalancer") {
    if (member_or_null(spec, "loadBalancerSourceRanges").is_array() &&
        !member_or_null(spec, "loadBalancerSourceRanges").empty()) {
      out.push_back(field_forbidden("spec.LoadBalancerSourceRanges",
                                    "may only be used when `type` is 'LoadBalancer'"));
    }
    if (!member_or_null(spec, "allocateLoadBalancerNodePorts").is_null()) {
      out.push_back(field_forbidden("spec.allocateLoadBalancerNodePorts",
                                    "may only be used when `type` is 'LoadBalancer'"));
    }
    if (!member_or_null(spec, "loadBalancerClass").is_null()) {
      out.push_back(field_forbidden("spec.loadBalancerClass",
                                    "may only be used when `type` is 'LoadBalancer'"));
    }
  } else if (member_or_null(spec, "allocateLoadBalancerNodePorts").is_null()) {
    out.push_back(field_required("allocateLoadBalancerNodePorts"));
  }
  traffic_rules(spec, out);
}

std::vector<std::string> check_port_name(const std::string& name) {
  std::vector<std::string> errs;
  if (name.size() > 15) errs.push_back("must be no more than 15 characters");
  static const std::regex charset("[-a-z0-9]+");
  static const std::regex letter(".*[a-z].*");
  if (!std::regex_match(name, charset))
    errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!std::regex_match(name, letter)) errs.push_back("must contain at least one letter (a-z)");
  if (name.find("--") != std::string::npos) errs.push_back("must not contain consecutive hyphens");
  if (!name.empty() && (name.front() == '-' || name.back() == '-'))
    errs.push_back("must not begin or end with a hyphen");
  return errs;
}

}  // namespace respool::sandbox::kinds
