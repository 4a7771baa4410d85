#include "sandbox/apiserver/handlers/virtual_kinds.hpp"

#include "sandbox/apiserver/handlers/body.hpp"
#include "sandbox/apiserver/handlers/responses.hpp"
#include "sandbox/apiserver/rbac/authorizer.hpp"

namespace respool::sandbox {
namespace {

OJson review_user_info(const User& user) {
  OJson u = {{"username", user.name}};
  if (!user.uid.empty()) u["uid"] = user.uid;
  u["groups"] = user.groups;
  return u;
}

// The review_answer as sent, with an empty creationTimestamp and the given status.
OJson review_answer(const ResourceType& type, const Json& body, OJson status) {
  OJson out = {{"kind", type.kind}, {"apiVersion", type.api_version()}};
  OJson meta = OJson::parse(to_text(body.value("metadata", Json::object())));
  if (!meta.is_object()) meta = OJson::object();
  meta["creationTimestamp"] = nullptr;
  out["metadata"] = meta;
  if (body.contains("spec")) out["spec"] = OJson::parse(to_text(body["spec"]));
  out["status"] = std::move(status);
  return out;
}

Attributes review_attributes(const Json& spec) {
  Attributes a;
  const Json ra = spec.value("resourceAttributes", Json());
  const Json na = spec.value("nonResourceAttributes", Json());
  if (ra.is_object()) {
    a.resource_request = true;
    a.verb = text_of(ra, "verb");
    a.group = text_of(ra, "group");
    a.version = text_of(ra, "version");
    a.resource = text_of(ra, "resource");
    a.subresource = text_of(ra, "subresource");
    a.ns = text_of(ra, "namespace");
    a.name = text_of(ra, "name");
  } else if (na.is_object()) {
    a.verb = text_of(na, "verb");
    a.path = text_of(na, "path");
  }
  return a;
}

OJson review_decision(const Decision& d) {
  OJson s = {{"allowed", d.allowed}};
  if (!d.reason.empty()) s["reason"] = d.reason;
  return s;
}

http::Response review_created(const OJson& body) {
  return json_response(201, body.dump());
}

http::Response component_status_answer(const VirtualRequest& r) {
  auto one = [](const char* name) {
    return OJson{{"kind", "ComponentStatus"},
                 {"apiVersion", "v1"},
                 {"metadata", {{"name", name}}},
                 {"conditions", {{{"type", "Healthy"}, {"status", "True"}, {"message", "ok"}}}}};
  };
  http::Response resp;
  if (r.info.name.empty()) {
    OJson list = {
        {"kind", "ComponentStatusList"}, {"apiVersion", "v1"}, {"metadata", OJson::object()}};
    list["items"] = {one("scheduler"), one("controller-manager"), one("etcd-0")};
    resp = json_response(200, list.dump());
  } else if (r.info.name == "scheduler" || r.info.name == "controller-manager" ||
             r.info.name == "etcd-0") {
    resp = json_response(200, one(r.info.name.c_str()).dump());
  } else {
    return error_response(not_found(r.type.gr(), r.info.name));
  }
  resp.headers.add("Warning", "299 - \"v1 ComponentStatus is deprecated in v1.19+\"");
  return resp;
}

}  // namespace

http::Response serve_virtual(Engine& engine, const Authenticator& authn,
                             const Authorizer& authorizer, const VirtualRequest& r) {
  const ResourceType& type = r.type;
  const std::string& verb = r.info.verb;
  if (std::find(type.verbs.begin(), type.verbs.end(), verb) == type.verbs.end()) {
    return error_response(method_not_allowed());
  }
  if (type.id == KindId::ComponentStatus) return component_status_answer(r);
  if (!r.info.name.empty()) return error_response(method_not_allowed());
  auto decoded = decode_object(r.request, type.kind, type.api_version());
  if (!decoded) return error_response(decoded.error());
  const Json& body = *decoded;
  if (!body.is_object()) return error_response(bad_request("the body must be an object"));
  const Json spec = body.value("spec", Json::object());
  switch (type.id) {
    case KindId::Binding: {
      bool dry_run = r.request.target.find("dryRun=All") != std::string::npos;
      auto done = engine.bind(r.info.ns, text_of(body.value("metadata", Json::object()), "name"),
                              body, dry_run);
      if (!done) return error_response(done.error());
      OJson ok = {{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", OJson::object()},
                  {"status", "Success"},
                  {"code", 201}};
      return json_response(201, ok.dump());
    }
    case KindId::SelfSubjectReview:
      return review_created(review_answer(type, body, {{"userInfo", review_user_info(r.user)}}));
    case KindId::SelfSubjectAccessReview:
      return review_created(review_answer(
          type, body, review_decision(authorizer.authorize(r.user, review_attributes(spec)))));
    case KindId::SubjectAccessReview:
    case KindId::LocalSubjectAccessReview: {
      User subject{text_of(spec, "user"), {}, ""};
      subject.uid = text_of(spec, "uid");
      if (spec.contains("groups") && spec["groups"].is_array()) {
        for (const Json& g : spec["groups"]) {
          if (g.is_string()) subject.groups.push_back(g.get<std::string>());
        }
      }
      Attributes a = review_attributes(spec);
      if (type.id == KindId::LocalSubjectAccessReview) {
        if (a.ns != r.info.ns) {
          return error_response(
              bad_request("spec.resourceAttributes.namespace must match "
                          "namespace: " +
                          r.info.ns));
        }
      }
      return review_created(
          review_answer(type, body, review_decision(authorizer.authorize(subject, a))));
    }
    case KindId::SelfSubjectRulesReview: {
      RuleSet rules = authorizer.rules_for(r.user, text_of(spec, "namespace"));
      OJson status = {{"resourceRules", rules.resource_rules},
                      {"nonResourceRules", rules.non_resource_rules},
                      {"incomplete", rules.incomplete}};
      if (!rules.evaluation_error.empty()) status["evaluationError"] = rules.evaluation_error;
      return review_created(review_answer(type, body, status));
    }
    case KindId::TokenReview: {
      std::optional<User> who = authn.token_user(text_of(spec, "token"));
      OJson status;
      if (who) {
        status = {{"authenticated", true}, {"user", review_user_info(*who)}};
      } else {
        status = {{"user", OJson::object()}, {"error", "invalid bearer token"}};
      }
      return review_created(review_answer(type, body, status));
    }
    default:
      return error_response(method_not_allowed());
  }
}

}  // namespace respool::sandbox
