// The authorizer chain of kube-apiserver (--authorization-mode=RBAC): members of system:masters
// may do everything (the privileged-group authorizer), then RBAC: every ClusterRoleBinding, and
// every RoleBinding of the request's namespace, whose subjects name the user, grants the rules
// of its role.

#include "sandbox/apiserver/rbac/authorizer.hpp"

#include <algorithm>
#include <mutex>

#include "sandbox/apiserver/rbac/rules.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {
namespace {

constexpr const char* kMastersGroup = "system:masters";

bool in_group(const User& user, const std::string& group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

// The subject of a binding that names `user`, if any ("User \"x\"", "Group \"g\"", ...).
std::optional<std::string> binding_subject_for(const Json& binding, const User& user,
                                               const std::string& binding_ns) {
  if (!binding.contains("subjects") || !binding["subjects"].is_array()) return std::nullopt;
  for (const Json& s : binding["subjects"]) {
    std::string kind = text_of(s, "kind"), name = text_of(s, "name");
    if (kind == "User" && name == user.name) return "User \"" + name + "\"";
    if (kind == "Group" && in_group(user, name)) return "Group \"" + name + "\"";
    if (kind == "ServiceAccount") {
      std::string ns = text_of(s, "namespace");
      if (ns.empty()) ns = binding_ns;
      if (user.name == "system:serviceaccount:" + ns + ":" + name) {
        return "ServiceAccount \"" + name + "/" + ns + "\"";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Attributes attributes_of(const RequestInfo& info) {
  Attributes a;
  a.resource_request = info.resource_request;
  a.verb = info.verb == "head" ? "get" : info.verb;
  a.group = info.group;
  a.version = info.version;
  a.resource = info.resource;
  a.subresource = info.subresource;
  a.ns = info.ns;
  a.name = info.name;
  a.path = info.path;
  return a;
}

void Authorizer::visit(const User& user, const std::string& ns, const Visitor& visit) const {
  Store& store = engine_.store();
  // RBAC's objects are kept decoded (registry/engine.cpp): pointers into them live as the store.
  auto rules_of = [&](const StoredObject* role) -> const Json* {
    if (!role || !role->obj()->contains("rules") || !(*role->obj())["rules"].is_array())
      return nullptr;
    return &(*role->obj())["rules"];
  };
  auto role_missing = [&](const std::string& kind, const std::string& name) {
    std::string res = kind == "Role" ? "role" : "clusterrole";
    return res + ".rbac.authorization.k8s.io \"" + name + "\" not found";
  };
  if (auto crbs = store.find("clusterrolebindings.rbac.authorization.k8s.io")) {
    for (const auto& [key, b] : crbs->items) {
      auto subject = binding_subject_for(*b.obj(), user, "");
      if (!subject) continue;
      std::string role_name = text_of((*b.obj())["roleRef"], "name");
      const StoredObject* role = store.get("clusterroles.rbac.authorization.k8s.io", role_name);
      const Json* rules = rules_of(role);
      std::string source =
          "ClusterRoleBinding \"" + key + "\" of ClusterRole \"" + role_name + "\" to " + *subject;
      if (!role) {
        if (!visit(source, nullptr, role_missing("ClusterRole", role_name))) return;
        continue;
      }
      if (!visit(source, rules, "")) return;
    }
  }
  if (ns.empty()) return;
  auto rbs = store.find("rolebindings.rbac.authorization.k8s.io");
  if (!rbs) return;
  std::string prefix = ns + "/";
  for (auto it = rbs->items.lower_bound(prefix);
       it != rbs->items.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    const auto binding = it->second.obj();
    const Json& b = *binding;
    auto subject = binding_subject_for(b, user, ns);
    if (!subject) continue;
    std::string kind = text_of(b["roleRef"], "kind"), role_name = text_of(b["roleRef"], "name");
    const StoredObject* role =
        kind == "Role" ? store.get("roles.rbac.authorization.k8s.io", ns + "/" + role_name)
                       : store.get("clusterroles.rbac.authorization.k8s.io", role_name);
    std::string source = "RoleBinding \"" + it->first.substr(prefix.size()) + "/" + ns + "\" of " +
                         kind + " \"" + role_name + "\" to " + *subject;
    if (!role) {
      if (!visit(source, nullptr, role_missing(kind, role_name))) return;
      continue;
    }
    if (!visit(source, rules_of(role), "")) return;
  }
}

Decision Authorizer::authorize(const User& user, const Attributes& a) const {
  if (!enabled_ || in_group(user, kMastersGroup)) return {true, "", {}};
  std::lock_guard lock(engine_.store().mutex());
  Decision d;
  visit(user, a.ns, [&](const std::string& source, const Json* rules, const std::string& error) {
    if (!error.empty()) d.errors.push_back(error);
    if (!rules) return true;
    for (const Json& rule : *rules) {
      if (rbac::rule_allows(rule, a)) {
        d.allowed = true;
        d.reason = "RBAC: allowed by " + source;
        return false;
      }
    }
    return true;
  });
  return d;
}

std::vector<Json> Authorizer::rules_of(const User& user, const std::string& ns,
                                       std::vector<std::string>* errors) const {
  std::vector<Json> out;
  if (!enabled_ || in_group(user, kMastersGroup)) {
    out.push_back({{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}});
    out.push_back({{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}});
  }
  visit(user, ns, [&](const std::string&, const Json* rules, const std::string& error) {
    if (!error.empty() && errors) errors->push_back(error);
    if (rules) out.insert(out.end(), rules->begin(), rules->end());
    return true;
  });
  return out;
}

RuleSet Authorizer::rules_for(const User& user, const std::string& ns) const {
  std::lock_guard lock(engine_.store().mutex());
  RuleSet r;
  std::vector<std::string> errors;
  for (const Json& rule : rules_of(user, ns, &errors)) {
    OJson o;
    if (rule.contains("nonResourceURLs")) {
      o["verbs"] = OJson::parse(rule["verbs"].dump());
      o["nonResourceURLs"] = OJson::parse(rule["nonResourceURLs"].dump());
      r.non_resource_rules.push_back(std::move(o));
      continue;
    }
    o["verbs"] = OJson::parse(rule.value("verbs", Json::array()).dump());
    o["apiGroups"] = OJson::parse(rule.value("apiGroups", Json::array()).dump());
    o["resources"] = OJson::parse(rule.value("resources", Json::array()).dump());
    if (rule.contains("resourceNames")) {
      o["resourceNames"] = OJson::parse(rule["resourceNames"].dump());
    }
    r.resource_rules.push_back(std::move(o));
  }
  if (!errors.empty()) {
    r.incomplete = true;
    r.evaluation_error = errors.front();
  }
  return r;
}

std::optional<ApiError> Authorizer::check(const User& user, const RequestInfo& info) const {
  Attributes a = attributes_of(info);
  Decision d = authorize(user, a);
  if (d.allowed) return std::nullopt;
  std::string suffix;
  if (!d.errors.empty()) {
    suffix = ": RBAC: ";
    for (std::size_t i = 0; i < d.errors.size(); ++i)
      suffix += (i ? ", " : "") + d.errors[i];
  }
  if (!info.resource_request) {
    return forbidden(
        {}, "",
        "User \"" + user.name + "\" cannot " + a.verb + " path \"" + info.path + "\"" + suffix);
  }
  std::string resource = info.resource;
  if (!info.subresource.empty()) resource += "/" + info.subresource;
  std::string msg = "User \"" + user.name + "\" cannot " + a.verb + " resource \"" + resource +
                    "\" in API group \"" + info.group + "\"";
  msg += info.ns.empty() ? " at the cluster scope" : " in the namespace \"" + info.ns + "\"";
  return forbidden({info.group, info.resource}, info.name, msg + suffix);
}

std::optional<ApiError> Authorizer::check_escalation(const User& user, const ResourceType& type,
                                                     const std::string& ns, const Json& obj) const {
  bool rbac_kind = type.id == KindId::Role || type.id == KindId::ClusterRole ||
                   type.id == KindId::RoleBinding || type.id == KindId::ClusterRoleBinding;
  if (!rbac_kind || !enabled_ || in_group(user, kMastersGroup)) return std::nullopt;
  bool binding = type.id == KindId::RoleBinding || type.id == KindId::ClusterRoleBinding;
  std::string name = text_of(obj.value("metadata", Json::object()), "name");
  std::vector<Json> requested;
  std::string role_ns = type.namespaced ? ns : "";
  if (binding) {
    const Json ref = obj.value("roleRef", Json::object());
    std::string kind = text_of(ref, "kind"), role_name = text_of(ref, "name");
    // The bind verb on the role allows binding it without holding its permissions.
    Attributes bind{true,
                    "bind",
                    "rbac.authorization.k8s.io",
                    "v1",
                    kind == "Role" ? "roles" : "clusterroles",
                    "",
                    kind == "Role" ? ns : "",
                    role_name,
                    ""};
    if (authorize(user, bind).allowed) return std::nullopt;
    std::lock_guard lock(engine_.store().mutex());
    const StoredObject* role =
        kind == "Role"
            ? engine_.store().get("roles.rbac.authorization.k8s.io", ns + "/" + role_name)
            : engine_.store().get("clusterroles.rbac.authorization.k8s.io", role_name);
    if (!role) return std::nullopt;  // the binding validation reports it
    const Json& rules = (*role->obj())["rules"];
    if (rules.is_array()) requested.assign(rules.begin(), rules.end());
  } else {
    // The escalate verb on roles / clusterroles allows writing any rules.
    Attributes escalate{
        true, "escalate", "rbac.authorization.k8s.io", "v1", type.plural, "", role_ns, name, ""};
    if (authorize(user, escalate).allowed) return std::nullopt;
    const Json rules = obj.value("rules", Json::array());
    if (rules.is_array()) requested.assign(rules.begin(), rules.end());
  }
  std::vector<std::string> errors;
  std::vector<Json> owned;
  {
    std::lock_guard lock(engine_.store().mutex());
    owned = rules_of(user, role_ns, &errors);
  }
  std::vector<Json> missing = rbac::uncovered(owned, requested);
  if (missing.empty()) return std::nullopt;
  std::string msg = "user \"" + user.name + "\" (groups=" + rbac::go_quoted_list(user.groups) +
                    ") is attempting to grant RBAC permissions not currently held:";
  for (const std::string& line : rbac::compact_strings(missing))
    msg += "\n" + line;
  if (!errors.empty()) {
    msg += "; resolution errors: [";
    for (std::size_t i = 0; i < errors.size(); ++i)
      msg += (i ? " " : "") + errors[i];
    msg += "]";
  }
  return forbidden(type.gr(), name, msg);
}

}  // namespace respool::sandbox
