#pragma once
// Kinds that are not stored: a handler answers them as the real server's REST storage does.
//   core/v1 bindings (POST: binds a pod, like pods/binding), componentstatuses (GET: the control
//   plane's health), authentication.k8s.io TokenReview and SelfSubjectReview,
//   authorization.k8s.io SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview
//   and SelfSubjectRulesReview (answered by the authorizer).

#include "operator/http/server.hpp"
#include "sandbox/apiserver/auth/auth.hpp"
#include "sandbox/apiserver/handlers/request_info.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

namespace respool::sandbox {

class Authorizer;

struct VirtualRequest {
  const http::ServerRequest& request;
  const RequestInfo& info;
  const ResourceType& type;
  const User& user;
};

// The answer to a request on a type that is not stored.
http::Response serve_virtual(Engine& engine, const Authenticator& authn, const Authorizer& authz,
                             const VirtualRequest& r);

}  // namespace respool::sandbox
