#pragma once
// RBAC PolicyRules: whether a rule allows a request, whether one set of rules covers another
// (escalation prevention), and the compact form the real server prints missing rules in.

#include <string>
#include <vector>

#include "sandbox/apiserver/rbac/authorizer.hpp"
#include "sandbox/apiserver/registry/store.hpp"

namespace respool::sandbox::rbac {

// rbac/v1 RuleAllows: verbs, apiGroups, resources ("pods", "pods/log", "*", "*/scale",
// "pods/*"), resourceNames; or nonResourceURLs ("/apis", "/apis/*").
bool rule_allows(const Json& rule, const Attributes& a);

// The rules of `requested` that `owned` does not cover, broken down to one verb, group,
// resource (and name) each (validation.Covers).
std::vector<Json> uncovered(const std::vector<Json>& owned, const std::vector<Json>& requested);

// Missing rules merged back per group/resource/names and printed as PolicyRule.CompactString:
// {APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}, sorted.
std::vector<std::string> compact_strings(const std::vector<Json>& rules);

// Go's %q of a []string: ["a" "b"].
std::string go_quoted_list(const std::vector<std::string>& items);

}  // namespace respool::sandbox::rbac
