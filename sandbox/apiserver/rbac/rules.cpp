#include "sandbox/apiserver/rbac/rules.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace respool::sandbox::rbac {
namespace {

std::vector<std::string> rule_strings(const Json& rule, const char* key) {
  std::vector<std::string> out;
  if (!rule.is_object() || !rule.contains(key) || !rule[key].is_array()) return out;
  for (const Json& v : rule[key]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

bool rule_has(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

bool rule_verb_matches(const Json& rule, const std::string& verb) {
  auto verbs = rule_strings(rule, "verbs");
  return rule_has(verbs, "*") || rule_has(verbs, verb);
}

bool rule_resource_matches(const Json& rule, const std::string& resource,
                           const std::string& subresource) {
  std::string combined = subresource.empty() ? resource : resource + "/" + subresource;
  for (const std::string& r : rule_strings(rule, "resources")) {
    if (r == "*" || r == combined) return true;
    if (subresource.empty()) continue;
    if (r == "*/" + subresource || r == resource + "/*") return true;
  }
  return false;
}

bool rule_name_matches(const Json& rule, const std::string& name) {
  auto names = rule_strings(rule, "resourceNames");
  return names.empty() || rule_has(names, name);
}

bool rule_url_matches(const Json& rule, const std::string& path) {
  for (const std::string& u : rule_strings(rule, "nonResourceURLs")) {
    if (u == "*" || u == path) return true;
    if (!u.empty() && u.back() == '*' && path.rfind(u.substr(0, u.size() - 1), 0) == 0) {
      return true;
    }
  }
  return false;
}

// One verb on one group/resource (and name), or one verb on one URL.
std::vector<Json> rule_breakdown(const Json& rule) {
  std::vector<Json> out;
  auto verbs = rule_strings(rule, "verbs");
  auto urls = rule_strings(rule, "nonResourceURLs");
  for (const std::string& g : rule_strings(rule, "apiGroups")) {
    for (const std::string& r : rule_strings(rule, "resources")) {
      auto names = rule_strings(rule, "resourceNames");
      for (const std::string& v : verbs) {
        if (names.empty()) {
          out.push_back({{"apiGroups", {g}}, {"resources", {r}}, {"verbs", {v}}});
        }
        for (const std::string& n : names) {
          out.push_back(
              {{"apiGroups", {g}}, {"resources", {r}}, {"resourceNames", {n}}, {"verbs", {v}}});
        }
      }
    }
  }
  for (const std::string& u : urls) {
    for (const std::string& v : verbs)
      out.push_back({{"nonResourceURLs", {u}}, {"verbs", {v}}});
  }
  return out;
}

bool rule_covers(const Json& owner, const Json& want) {
  auto verbs = rule_strings(owner, "verbs");
  std::string verb = rule_strings(want, "verbs")[0];
  if (!rule_has(verbs, "*") && !rule_has(verbs, verb)) return false;
  if (want.contains("nonResourceURLs")) {
    std::string url = rule_strings(want, "nonResourceURLs")[0];
    for (const std::string& u : rule_strings(owner, "nonResourceURLs")) {
      if (u == "*" || u == url) return true;
      if (!u.empty() && u.back() == '*' && url.rfind(u.substr(0, u.size() - 1), 0) == 0) {
        return true;
      }
    }
    return false;
  }
  auto groups = rule_strings(owner, "apiGroups");
  std::string group = rule_strings(want, "apiGroups")[0];
  if (!rule_has(groups, "*") && !rule_has(groups, group)) return false;
  std::string resource = rule_strings(want, "resources")[0];
  bool resource_ok = false;
  for (const std::string& r : rule_strings(owner, "resources")) {
    auto slash = resource.find('/');
    if (r == "*" || r == resource) resource_ok = true;
    if (slash != std::string::npos &&
        (r == resource.substr(0, slash) + "/*" || r == std::string("*") + resource.substr(slash))) {
      resource_ok = true;
    }
  }
  if (!resource_ok) return false;
  auto names = rule_strings(owner, "resourceNames");
  if (names.empty()) return true;
  auto wanted = rule_strings(want, "resourceNames");
  return !wanted.empty() && rule_has(names, wanted[0]);
}

std::string go_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

bool rule_allows(const Json& rule, const Attributes& a) {
  if (!rule_verb_matches(rule, a.verb)) return false;
  if (!a.resource_request) return rule_url_matches(rule, a.path);
  auto groups = rule_strings(rule, "apiGroups");
  if (!rule_has(groups, "*") && !rule_has(groups, a.group)) return false;
  return rule_resource_matches(rule, a.resource, a.subresource) && rule_name_matches(rule, a.name);
}

std::vector<Json> uncovered(const std::vector<Json>& owned, const std::vector<Json>& requested) {
  std::vector<Json> missing;
  for (const Json& rule : requested) {
    for (const Json& piece : rule_breakdown(rule)) {
      bool covered = std::any_of(owned.begin(), owned.end(),
                                 [&](const Json& o) { return rule_covers(o, piece); });
      if (!covered) missing.push_back(piece);
    }
  }
  return missing;
}

std::string go_quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += " ";
    out += go_quoted(items[i]);
  }
  return out + "]";
}

std::vector<std::string> compact_strings(const std::vector<Json>& rules) {
  // Rules on the same group, resource and names merge their verbs (rbac CompactRules).
  std::map<std::vector<std::string>, std::vector<std::string>> merged;
  std::vector<std::vector<std::string>> order;
  std::set<std::string> out;
  for (const Json& r : rules) {
    if (r.contains("nonResourceURLs")) {
      out.insert(std::string("{NonResourceURLs:") +
                 go_quoted_list(rule_strings(r, "nonResourceURLs")) + std::string(", Verbs:") +
                 go_quoted_list(rule_strings(r, "verbs")) + "}");
      continue;
    }
    std::vector<std::string> key = {rule_strings(r, "apiGroups")[0],
                                    rule_strings(r, "resources")[0]};
    for (const std::string& n : rule_strings(r, "resourceNames"))
      key.push_back(n);
    if (!merged.count(key)) order.push_back(key);
    for (const std::string& v : rule_strings(r, "verbs")) {
      auto& verbs = merged[key];
      if (!rule_has(verbs, v)) verbs.push_back(v);
    }
  }
  for (const auto& key : order) {
    std::string s = std::string("{APIGroups:") + go_quoted_list({key[0]}) +
                    std::string(", Resources:") + go_quoted_list({key[1]});
    if (key.size() > 2) {
      s += std::string(", ResourceNames:") + go_quoted_list({key.begin() + 2, key.end()});
    }
    out.insert(s + std::string(", Verbs:") + go_quoted_list(merged[key]) + "}");
  }
  return {out.begin(), out.end()};
}

}  // namespace respool::sandbox::rbac
