#pragma once
// Authorization of every request, as kube-apiserver's authorizer chain decides it: members of
// system:masters may do everything; everyone else gets what RBAC grants them (Roles,
// ClusterRoles and their bindings in the store, evaluated per request). Reviews
// (SubjectAccessReview, SelfSubjectRulesReview, ...) ask the same authorizer.

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "operator/http/message.hpp"
#include "sandbox/apiserver/auth/auth.hpp"
#include "sandbox/apiserver/errors.hpp"
#include "sandbox/apiserver/handlers/request_info.hpp"
#include "sandbox/apiserver/registry/registry.hpp"

namespace respool::sandbox {

class Engine;

// What a request asks to do (authorizer.Attributes).
struct Attributes {
  bool resource_request = false;
  std::string verb, group, version, resource, subresource, ns, name, path;
};
Attributes attributes_of(const RequestInfo& info);

struct Decision {
  bool allowed = false;
  std::string reason;               // why, as SubjectAccessReview's status.reason says it
  std::vector<std::string> errors;  // bindings whose role is missing
};

// What a user may do in a namespace (SelfSubjectRulesReview's status).
struct RuleSet {
  OJson resource_rules = OJson::array();
  OJson non_resource_rules = OJson::array();
  bool incomplete = false;
  std::string evaluation_error;
};

class Authorizer {
 public:
  explicit Authorizer(Engine& engine) : engine_(engine) {}
  // Off: every request is allowed (kube-apiserver --authorization-mode=AlwaysAllow).
  void set_enabled(bool enabled) { enabled_ = enabled; }
  bool enabled() const { return enabled_; }

  Decision authorize(const User& user, const Attributes& a) const;
  RuleSet rules_for(const User& user, const std::string& ns) const;
  // A 403 Status worded as the server words it, when `user` may not do `info`.
  std::optional<ApiError> check(const User& user, const RequestInfo& info) const;
  // The user a request acts as: `requester`, or whom its Impersonate-* headers name when
  // `requester` may impersonate them (403 otherwise).
  std::expected<User, ApiError> impersonate(const http::Headers& headers,
                                            const User& requester) const;
  // Escalation prevention on writing a Role, ClusterRole or binding `obj`: the 403 when it
  // grants what `user` does not hold (unless `user` may escalate / bind).
  std::optional<ApiError> check_escalation(const User& user, const ResourceType& type,
                                           const std::string& ns, const Json& obj) const;

 private:
  // Calls visit(source, rules or null, resolution error) for every binding naming `user`
  // (cluster-wide, then in `ns`) until it returns false. Needs the store mutex held.
  using Visitor = std::function<bool(const std::string&, const Json*, const std::string&)>;
  void visit(const User& user, const std::string& ns, const Visitor& visit) const;
  // Every rule `user` holds in `ns` ("" = cluster-wide). Needs the store mutex held.
  std::vector<Json> rules_of(const User& user, const std::string& ns,
                             std::vector<std::string>* errors) const;

  Engine& engine_;
  bool enabled_ = true;
};

}  // namespace respool::sandbox
