// Affinity, dnsConfig, hostAliases, readiness and scheduling gates and topology spread
// constraints as pkg/apis/core/validation (v1.32) checks them.

#include <regex>

#include "sandbox/apiserver/validation/pod.hpp"

namespace respool::sandbox::kinds {
namespace {

const char* kPositive = "must be greater than zero";

void sched_node_term(const Json& term, bool any_values, const std::string& at,
                     std::vector<Cause>& out) {
  const Json& exprs = member_or_null(term, "matchExpressions");
  for (std::size_t i = 0; exprs.is_array() && i < exprs.size(); ++i) {
    const Json& e = object_or_empty(exprs[i]);
    const std::string e_at = indexed(at + ".matchExpressions", i);
    const std::string op = text_of(e, "operator");
    const Json& values = member_or_null(e, "values");
    const std::size_t n = values.is_array() ? values.size() : 0;
    if (op == "In" || op == "NotIn") {
      if (n == 0) {
        out.push_back(field_required(e_at + ".values",
                                     "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (n > 0) {
        out.push_back(
            field_forbidden(e_at + ".values",
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else if (op == "Gt" || op == "Lt") {
      if (n != 1) {
        out.push_back(field_required(
            e_at + ".values", "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
    } else {
      out.push_back(field_invalid(e_at + ".operator", op, "not a valid selector operator"));
    }
    const std::string key = text_of(e, "key");
    for (const std::string& msg : check_qualified_name(key))
      out.push_back(field_invalid(e_at + ".key", key, msg));
    for (std::size_t j = 0; !any_values && j < n; ++j) {
      const std::string v = values[j].is_string() ? values[j].get<std::string>() : "";
      for (const std::string& msg : check_label_value(v))
        out.push_back(field_invalid(indexed(e_at + ".values", j), v, msg));
    }
  }
  const Json& fields = member_or_null(term, "matchFields");
  for (std::size_t i = 0; fields.is_array() && i < fields.size(); ++i) {
    const Json& f = object_or_empty(fields[i]);
    const std::string f_at = indexed(at + ".matchFields", i);
    const std::string op = text_of(f, "operator");
    const Json& values = member_or_null(f, "values");
    const std::size_t n = values.is_array() ? values.size() : 0;
    if (op == "In" || op == "NotIn") {
      if (n != 1) {
        out.push_back(field_required(f_at + ".values",
                                     "must be only one value when `operator` is 'In' or 'NotIn' "
                                     "for node field selector"));
      }
    } else {
      out.push_back(field_invalid(f_at + ".operator", op, "not a valid selector operator"));
    }
    const std::string key = text_of(f, "key");
    if (key != "metadata.name") {
      out.push_back(field_invalid(f_at + ".key", key, "not a valid field selector key"));
      continue;
    }
    for (std::size_t j = 0; j < n; ++j) {
      const std::string v = values[j].is_string() ? values[j].get<std::string>() : "";
      if (auto msg = check_dns_subdomain(v))
        out.push_back(field_invalid(indexed(f_at + ".values", j), v, *msg));
    }
  }
}

// validatePodAffinityTerm.
void sched_pod_term(const Json& term, const std::string& at, std::vector<Cause>& out) {
  label_selector_rules(member_or_null(term, "labelSelector"), at + ".labelSelector", out);
  label_selector_rules(member_or_null(term, "namespaceSelector"), at + ".namespaceSelector", out);
  const Json& namespaces = member_or_null(term, "namespaces");
  for (std::size_t i = 0; namespaces.is_array() && i < namespaces.size(); ++i) {
    const std::string ns = namespaces[i].is_string() ? namespaces[i].get<std::string>() : "";
    if (auto msg = check_dns_label(ns)) out.push_back(field_invalid(at + ".namespace", ns, *msg));
  }
  const std::string key = text_of(term, "topologyKey");
  if (key.empty()) out.push_back(field_required(at + ".topologyKey", "can not be empty"));
  for (const std::string& msg : check_qualified_name(key))
    out.push_back(field_invalid(at + ".topologyKey", key, msg));
}

void sched_weight(const Json& holder, const std::string& at, std::vector<Cause>& out) {
  const Json& w = member_or_null(holder, "weight");
  const long long weight = w.is_number_integer() ? w.get<long long>() : 0;
  if (weight <= 0 || weight > 100) {
    out.push_back(field_invalid(at + ".weight", weight, "must be in the range 1-100"));
  }
}

void sched_affinity(const Json& affinity, const std::string& at, std::vector<Cause>& out) {
  const Json& node = member_or_null(affinity, "nodeAffinity");
  const Json& required = member_or_null(node, "requiredDuringSchedulingIgnoredDuringExecution");
  if (!required.is_null()) {
    const std::string terms_at =
        at + ".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
    const Json& terms = member_or_null(required, "nodeSelectorTerms");
    if (!terms.is_array() || terms.empty()) {
      out.push_back(field_required(terms_at, "must have at least one node selector term"));
    }
    for (std::size_t i = 0; terms.is_array() && i < terms.size(); ++i) {
      sched_node_term(object_or_empty(terms[i]), false, indexed(terms_at, i), out);
    }
  }
  const Json& preferred = member_or_null(node, "preferredDuringSchedulingIgnoredDuringExecution");
  for (std::size_t i = 0; preferred.is_array() && i < preferred.size(); ++i) {
    const std::string p_at =
        indexed(at + ".nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution", i);
    sched_weight(object_or_empty(preferred[i]), p_at, out);
    sched_node_term(member_or_null(preferred[i], "preference"), true, p_at + ".preference", out);
  }
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    const Json& pod = member_or_null(affinity, kind);
    const std::string kind_at = at + "." + kind;
    const Json& req = member_or_null(pod, "requiredDuringSchedulingIgnoredDuringExecution");
    for (std::size_t i = 0; req.is_array() && i < req.size(); ++i) {
      sched_pod_term(object_or_empty(req[i]),
                     indexed(kind_at + ".requiredDuringSchedulingIgnoredDuringExecution", i), out);
    }
    const Json& pref = member_or_null(pod, "preferredDuringSchedulingIgnoredDuringExecution");
    for (std::size_t i = 0; pref.is_array() && i < pref.size(); ++i) {
      const std::string w_at =
          indexed(kind_at + ".preferredDuringSchedulingIgnoredDuringExecution", i);
      sched_weight(object_or_empty(pref[i]), w_at, out);
      sched_pod_term(member_or_null(pref[i], "podAffinityTerm"), w_at + ".podAffinityTerm", out);
    }
  }
}

bool sched_ip(const std::string& ip) {
  static const std::regex kV4("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
  std::smatch m;
  if (std::regex_match(ip, m, kV4)) {
    for (std::size_t i = 1; i <= 4; ++i) {
      if (std::stoi(m[i].str()) > 255) return false;
    }
    return true;
  }
  static const std::regex kV6("[0-9A-Fa-f:.]+");
  return ip.find(':') != std::string::npos && std::regex_match(ip, kV6);
}

// validatePodDNSConfig.
void sched_dns_config(const Json& spec, const std::string& at, std::vector<Cause>& out) {
  const Json& config = member_or_null(spec, "dnsConfig");
  const Json& servers = member_or_null(config, "nameservers");
  if (text_of(spec, "dnsPolicy") == "None") {
    if (config.is_null()) {
      out.push_back(field_required(at, "must provide `dnsConfig` when `dnsPolicy` is None"));
      return;
    }
    if (!servers.is_array() || servers.empty()) {
      out.push_back(field_required(at + ".nameservers",
                                   "must provide at least one DNS nameserver when `dnsPolicy` is "
                                   "None"));
      return;
    }
  }
  if (!config.is_object()) return;
  if (servers.is_array() && servers.size() > 3) {
    out.push_back(field_invalid_raw(at + ".nameservers", "[]string{...}",
                                    "must not have more than 3 nameservers"));
  }
  for (std::size_t i = 0; servers.is_array() && i < servers.size(); ++i) {
    const std::string ip = servers[i].is_string() ? servers[i].get<std::string>() : "";
    if (!sched_ip(ip)) {
      out.push_back(field_invalid(indexed(at + ".nameservers", i), ip,
                                  "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
  }
  const Json& searches = member_or_null(config, "searches");
  for (std::size_t i = 0; searches.is_array() && i < searches.size(); ++i) {
    std::string s = searches[i].is_string() ? searches[i].get<std::string>() : "";
    if (s.ends_with(".")) s.pop_back();
    if (auto msg = check_dns_subdomain(s))
      out.push_back(field_invalid(indexed(at + ".searches", i), s, *msg));
  }
  const Json& options = member_or_null(config, "options");
  for (std::size_t i = 0; options.is_array() && i < options.size(); ++i) {
    if (text_of(object_or_empty(options[i]), "name").empty()) {
      out.push_back(field_required(indexed(at + ".options", i), "must not be empty"));
    }
  }
}

// validateTopologySpreadConstraints.
void sched_spread(const Json& constraints, const std::string& at, std::vector<Cause>& out) {
  for (std::size_t i = 0; constraints.is_array() && i < constraints.size(); ++i) {
    const Json& c = object_or_empty(constraints[i]);
    const std::string c_at = indexed(at, i);
    const Json& skew = member_or_null(c, "maxSkew");
    const long long max_skew = skew.is_number_integer() ? skew.get<long long>() : 0;
    if (max_skew <= 0) out.push_back(field_invalid(c_at + ".maxSkew", max_skew, kPositive));
    const std::string key = text_of(c, "topologyKey");
    if (key.empty()) out.push_back(field_required(c_at + ".topologyKey", "can not be empty"));
    const std::string when = text_of(c, "whenUnsatisfiable");
    if (when != "DoNotSchedule" && when != "ScheduleAnyway") {
      out.push_back(field_not_supported(c_at + ".whenUnsatisfiable", when,
                                        {"DoNotSchedule", "ScheduleAnyway"}));
    }
    for (std::size_t j = i + 1; j < constraints.size(); ++j) {
      const Json& other = object_or_empty(constraints[j]);
      if (text_of(other, "topologyKey") == key && text_of(other, "whenUnsatisfiable") == when) {
        out.push_back(field_duplicate_raw(c_at + ".{topologyKey, whenUnsatisfiable}",
                                          render_value("{" + key + ", " + when + "}")));
        break;
      }
    }
    const Json& min_domains = member_or_null(c, "minDomains");
    if (min_domains.is_number_integer()) {
      if (min_domains.get<long long>() <= 0) {
        out.push_back(field_invalid(c_at + ".minDomains", min_domains, kPositive));
      }
      if (when != "DoNotSchedule") {
        out.push_back(field_invalid(c_at + ".minDomains", min_domains,
                                    "can only use minDomains if whenUnsatisfiable=DoNotSchedule, "
                                    "not " +
                                        when));
      }
    }
    for (const char* policy : {"nodeAffinityPolicy", "nodeTaintsPolicy"}) {
      const Json& p = member_or_null(c, policy);
      if (p.is_string() && p != "Honor" && p != "Ignore") {
        out.push_back(field_not_supported(c_at + "." + policy, p, {"Honor", "Ignore"}));
      }
    }
    label_selector_rules(member_or_null(c, "labelSelector"), c_at + ".labelSelector", out);
  }
}

}  // namespace

void pod_scheduling_rules(const Json& spec, const std::string& at, std::vector<Cause>& out) {
  label_map_rules(member_or_null(spec, "nodeSelector"), at + ".nodeSelector", out);
  pod_security_rules(spec, at + ".securityContext", out);
  sched_affinity(member_or_null(spec, "affinity"), at + ".affinity", out);
  sched_dns_config(spec, at + ".dnsConfig", out);
  const Json& gates = member_or_null(spec, "readinessGates");
  for (std::size_t i = 0; gates.is_array() && i < gates.size(); ++i) {
    const std::string type = text_of(object_or_empty(gates[i]), "conditionType");
    for (const std::string& msg : check_qualified_name(type))
      out.push_back(
          field_invalid(indexed(at + ".readinessGates", i) + ".conditionType", type, msg));
  }
  const Json& scheduling = member_or_null(spec, "schedulingGates");
  std::set<std::string> seen;
  for (std::size_t i = 0; scheduling.is_array() && i < scheduling.size(); ++i) {
    const std::string name = text_of(object_or_empty(scheduling[i]), "name");
    const std::string g_at = indexed(at + ".schedulingGates", i);
    for (const std::string& msg : check_qualified_name(name))
      out.push_back(field_invalid(g_at, name, msg));
    if (!seen.insert(name).second) out.push_back(field_duplicate_raw(g_at, render_value(name)));
  }
  sched_spread(member_or_null(spec, "topologySpreadConstraints"), at + ".topologySpreadConstraints",
               out);
}

void pod_host_alias_rules(const Json& spec, const std::string& at, std::vector<Cause>& out) {
  const Json& aliases = member_or_null(spec, "hostAliases");
  for (std::size_t i = 0; aliases.is_array() && i < aliases.size(); ++i) {
    const Json& alias = object_or_empty(aliases[i]);
    const std::string a_at = indexed(at, i);
    const std::string ip = text_of(alias, "ip");
    if (!sched_ip(ip)) {
      out.push_back(field_invalid(a_at + ".ip", ip,
                                  "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
    const Json& names = member_or_null(alias, "hostnames");
    for (std::size_t j = 0; names.is_array() && j < names.size(); ++j) {
      const std::string name = names[j].is_string() ? names[j].get<std::string>() : "";
      if (auto msg = check_dns_subdomain(name)) {
        out.push_back(field_invalid(indexed(a_at + ".hostnames", j), name, *msg));
      }
    }
  }
}

}  // namespace respool::sandbox::kinds
