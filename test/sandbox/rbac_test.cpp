// Authorization as a real server's RBAC authorizer decides it: a ServiceAccount bound to a narrow
// Role, the 403 wording, escalation prevention, impersonation, the reviews kubectl auth uses,
// TokenRequest tokens expiring on the injected clock, ClusterRole aggregation.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "operator/runtime/clock.hpp"

using namespace respool::sandbox::testing;
using namespace std::chrono_literals;

namespace {

const std::string kRbac = "/apis/rbac.authorization.k8s.io/v1";

Reply as(Harness& h, const std::string& token, const std::string& method, const std::string& target,
         const Json& body = nullptr,
         std::vector<std::pair<std::string, std::string>> headers = {}) {
  Request r{method, target, body.is_null() ? "" : body.dump(), std::move(headers)};
  r.token = token;
  return h.call(r);
}

// A namespace "team" with ServiceAccount "app" bound to a Role that reads pods; its token.
std::string setup_reader(Harness& h) {
  REQUIRE(h.post("/api/v1/namespaces", Json{{"metadata", {{"name", "team"}}}}).status == 201);
  REQUIRE(h.post("/api/v1/namespaces/team/serviceaccounts", Json{{"metadata", {{"name", "app"}}}})
              .status == 201);
  Json role = {
      {"metadata", {{"name", "pod-reader"}}},
      {"rules",
       {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "list", "watch"}}}}}};
  REQUIRE(h.post(kRbac + "/namespaces/team/roles", role).status == 201);
  Json binding = {
      {"metadata", {{"name", "app-reads-pods"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "pod-reader"}}},
      {"subjects", {{{"kind", "ServiceAccount"}, {"name", "app"}, {"namespace", "team"}}}}};
  REQUIRE(h.post(kRbac + "/namespaces/team/rolebindings", binding).status == 201);
  auto token =
      h.post("/api/v1/namespaces/team/serviceaccounts/app/token", Json{{"spec", Json::object()}});
  REQUIRE(token.status == 201);
  Json tr = token.json();
  REQUIRE(tr["kind"] == "TokenRequest");
  REQUIRE(tr["spec"]["expirationSeconds"] == 3600);
  REQUIRE(tr["spec"]["audiences"] == Json::array({"https://kubernetes.default.svc.cluster.local"}));
  return tr["status"]["token"];
}

const char* kPod =
    R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}})";

}  // namespace

TEST_CASE("a ServiceAccount may do exactly what its Role grants", "[rbac]") {
  Harness h;
  std::string token = setup_reader(h);
  REQUIRE(as(h, token, "GET", "/api/v1/namespaces/team/pods").status == 200);
  auto created = as(h, token, "POST", "/api/v1/namespaces/team/pods", Json::parse(kPod));
  REQUIRE(created.status == 403);
  Json status = created.json();
  REQUIRE(status["reason"] == "Forbidden");
  REQUIRE(status["message"] ==
          "pods is forbidden: User \"system:serviceaccount:team:app\" cannot create resource "
          "\"pods\" in API group \"\" in the namespace \"team\"");
  REQUIRE(status["details"] == Json({{"kind", "pods"}}));
  auto other_ns = as(h, token, "GET", "/api/v1/namespaces/default/pods");
  REQUIRE(other_ns.status == 403);
  REQUIRE(other_ns.json()["message"] ==
          "pods is forbidden: User \"system:serviceaccount:team:app\" cannot list resource "
          "\"pods\" in API group \"\" in the namespace \"default\"");
  auto named = as(h, token, "DELETE", "/api/v1/namespaces/team/pods/p");
  REQUIRE(named.json()["message"] ==
          "pods \"p\" is forbidden: User \"system:serviceaccount:team:app\" cannot delete "
          "resource \"pods\" in API group \"\" in the namespace \"team\"");
  auto sub = as(h, token, "GET", "/api/v1/namespaces/team/pods/p/log");
  REQUIRE(sub.json()["message"] ==
          "pods \"p\" is forbidden: User \"system:serviceaccount:team:app\" cannot get resource "
          "\"pods/log\" in API group \"\" in the namespace \"team\"");
  auto cluster = as(h, token, "GET", "/api/v1/nodes");
  REQUIRE(cluster.json()["message"] ==
          "nodes is forbidden: User \"system:serviceaccount:team:app\" cannot list resource "
          "\"nodes\" in API group \"\" at the cluster scope");
  // Discovery is open to every authenticated user (system:discovery), as on a real server.
  REQUIRE(as(h, token, "GET", "/apis").status == 200);

  // A binding to a missing role adds the resolution error to the message.
  Json dangling = {
      {"metadata", {{"name", "dangling"}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "nope"}}},
      {"subjects", {{{"kind", "ServiceAccount"}, {"name", "app"}, {"namespace", "team"}}}}};
  REQUIRE(h.post(kRbac + "/namespaces/team/rolebindings", dangling).status == 201);
  REQUIRE(as(h, token, "GET", "/api/v1/namespaces/team/configmaps").json()["message"] ==
          "configmaps is forbidden: User \"system:serviceaccount:team:app\" cannot list resource "
          "\"configmaps\" in API group \"\" in the namespace \"team\": RBAC: "
          "role.rbac.authorization.k8s.io \"nope\" not found");
}

TEST_CASE("the reviews answer with the same authorizer", "[rbac]") {
  Harness h;
  std::string token = setup_reader(h);
  Json ssar = {
      {"apiVersion", "authorization.k8s.io/v1"},
      {"kind", "SelfSubjectAccessReview"},
      {"spec",
       {{"resourceAttributes", {{"namespace", "team"}, {"verb", "list"}, {"resource", "pods"}}}}}};
  auto yes = as(h, token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar);
  REQUIRE(yes.status == 201);
  REQUIRE(yes.json()["status"]["allowed"] == true);
  REQUIRE(yes.json()["status"]["reason"] ==
          "RBAC: allowed by RoleBinding \"app-reads-pods/team\" of Role \"pod-reader\" to "
          "ServiceAccount \"app/team\"");
  ssar["spec"]["resourceAttributes"]["verb"] = "create";
  auto no = as(h, token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar);
  REQUIRE(no.json()["status"]["allowed"] == false);
  auto admin = h.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ssar);
  REQUIRE(admin.json()["status"]["allowed"] == true);

  Json sar = {
      {"spec",
       {{"user", "system:serviceaccount:team:app"},
        {"groups", {"system:serviceaccounts", "system:authenticated"}},
        {"resourceAttributes", {{"namespace", "team"}, {"verb", "get"}, {"resource", "pods"}}}}}};
  REQUIRE(h.post("/apis/authorization.k8s.io/v1/subjectaccessreviews", sar)
              .json()["status"]["allowed"] == true);
  // The ServiceAccount may not ask about others (system:auth-delegator is not bound to it).
  REQUIRE(as(h, token, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar).status ==
          403);

  Json who = as(h, token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                Json{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}})
                 .json();
  REQUIRE(who["status"]["userInfo"]["username"] == "system:serviceaccount:team:app");
  REQUIRE(who["status"]["userInfo"]["groups"] ==
          Json::array(
              {"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}));

  Json rules = as(h, token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                  Json{{"spec", {{"namespace", "team"}}}})
                   .json();
  bool pods = false;
  for (const Json& r : rules["status"]["resourceRules"]) {
    if (r["resources"] == Json::array({"pods"}))
      pods = r["verbs"] == Json::array({"get", "list", "watch"});
  }
  REQUIRE(pods);
  REQUIRE(rules["status"]["incomplete"] == false);

  Json review =
      h.post("/apis/authentication.k8s.io/v1/tokenreviews", Json{{"spec", {{"token", token}}}})
          .json();
  REQUIRE(review["status"]["authenticated"] == true);
  REQUIRE(review["status"]["user"]["username"] == "system:serviceaccount:team:app");
}

TEST_CASE("writing roles and bindings cannot grant more than the writer holds", "[rbac]") {
  Harness h;
  std::string token = setup_reader(h);
  Json manage = {{"metadata", {{"name", "rbac-manager"}}},
                 {"rules",
                  {{{"apiGroups", {"rbac.authorization.k8s.io"}},
                    {"resources", {"roles", "rolebindings"}},
                    {"verbs", {"create"}}}}}};
  REQUIRE(h.post(kRbac + "/namespaces/team/roles", manage).status == 201);
  Json bind = {
      {"metadata", {{"name", "app-manages-rbac"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "rbac-manager"}}},
      {"subjects", {{{"kind", "ServiceAccount"}, {"name", "app"}, {"namespace", "team"}}}}};
  REQUIRE(h.post(kRbac + "/namespaces/team/rolebindings", bind).status == 201);

  Json escalate = {
      {"metadata", {{"name", "deleter"}}},
      {"rules", {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "delete"}}}}}};
  auto refused = as(h, token, "POST", kRbac + "/namespaces/team/roles", escalate);
  REQUIRE(refused.status == 403);
  REQUIRE(refused.json()["message"] ==
          "roles.rbac.authorization.k8s.io \"deleter\" is forbidden: user "
          "\"system:serviceaccount:team:app\" (groups=[\"system:serviceaccounts\" "
          "\"system:serviceaccounts:team\" \"system:authenticated\"]) is attempting to grant RBAC "
          "permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], "
          "Verbs:[\"delete\"]}");
  Json narrower = {{"metadata", {{"name", "getter"}}},
                   {"rules", {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}}}}};
  REQUIRE(as(h, token, "POST", kRbac + "/namespaces/team/roles", narrower).status == 201);

  // Binding a role it does not hold (edit) is refused; the admin's binding goes through.
  Json to_edit = {
      {"metadata", {{"name", "app-edits"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "edit"}}},
      {"subjects", {{{"kind", "ServiceAccount"}, {"name", "app"}, {"namespace", "team"}}}}};
  auto bind_refused = as(h, token, "POST", kRbac + "/namespaces/team/rolebindings", to_edit);
  REQUIRE(bind_refused.status == 403);
  REQUIRE(bind_refused.json()["message"].get<std::string>().find(
              "is attempting to grant RBAC permissions not currently held:\n") !=
          std::string::npos);
  REQUIRE(h.post(kRbac + "/namespaces/team/rolebindings", to_edit).status == 201);
  // With edit bound, the same ServiceAccount may now create pods.
  REQUIRE(as(h, token, "POST", "/api/v1/namespaces/team/pods", Json::parse(kPod)).status == 201);
}

TEST_CASE("impersonation needs the impersonate verb", "[rbac]") {
  Harness h;
  std::string token = setup_reader(h);
  std::vector<std::pair<std::string, std::string>> as_app = {
      {"Impersonate-User", "system:serviceaccount:team:app"}};
  auto listed = h.call({"GET", "/api/v1/namespaces/team/pods", "", as_app});
  REQUIRE(listed.status == 200);
  auto created = h.call({"POST", "/api/v1/namespaces/team/pods", kPod, as_app});
  REQUIRE(created.status == 403);
  REQUIRE(created.json()["message"].get<std::string>().find(
              "User \"system:serviceaccount:team:app\" cannot create") != std::string::npos);
  auto refused =
      as(h, token, "GET", "/api/v1/namespaces/team/pods", nullptr, {{"Impersonate-User", "bob"}});
  REQUIRE(refused.status == 403);
  REQUIRE(refused.json()["message"] ==
          "users \"bob\" is forbidden: User \"system:serviceaccount:team:app\" cannot impersonate "
          "resource \"users\" in API group \"\" at the cluster scope");
  // --as bob --as-group system:masters: the group makes bob an administrator.
  auto group = h.call({"GET",
                       "/api/v1/nodes",
                       "",
                       {{"Impersonate-User", "bob"}, {"Impersonate-Group", "system:masters"}}});
  REQUIRE(group.status == 200);
  auto bob = h.call({"GET", "/api/v1/nodes", "", {{"Impersonate-User", "bob"}}});
  REQUIRE(bob.status == 403);
}

TEST_CASE("TokenRequest tokens expire on the injected clock and die with their account", "[rbac]") {
  respool::runtime::ManualClock clock;
  Harness h(&clock);
  std::string token = setup_reader(h);
  REQUIRE(as(h, token, "GET", "/api/v1/namespaces/team/pods").status == 200);
  clock.advance(3601s);
  REQUIRE(as(h, token, "GET", "/api/v1/namespaces/team/pods").status == 401);
  auto fresh = h.post("/api/v1/namespaces/team/serviceaccounts/app/token",
                      Json{{"spec", {{"expirationSeconds", 7200}}}});
  REQUIRE(fresh.json()["spec"]["expirationSeconds"] == 7200);
  std::string second = fresh.json()["status"]["token"];
  REQUIRE(as(h, second, "GET", "/api/v1/namespaces/team/pods").status == 200);
  REQUIRE(h.del("/api/v1/namespaces/team/serviceaccounts/app").status == 200);
  REQUIRE(as(h, second, "GET", "/api/v1/namespaces/team/pods").status == 401);
  REQUIRE(h.post("/api/v1/namespaces/team/serviceaccounts/nobody/token", Json::object()).status ==
          404);
  auto short_lived = h.post("/api/v1/namespaces/team/serviceaccounts/app/token",
                            Json{{"spec", {{"expirationSeconds", 60}}}});
  REQUIRE(short_lived.status == 422);
  REQUIRE(short_lived.json()["details"]["causes"][0]["message"] ==
          "Invalid value: 60: may not specify a duration less than 10 minutes");
}

TEST_CASE("bootstrap roles, their bindings and ClusterRole aggregation", "[rbac]") {
  Harness h;
  Json admin = h.get(kRbac + "/clusterroles/admin").json();
  REQUIRE(admin["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"] ==
          Json({{"rbac.authorization.k8s.io/aggregate-to-admin", "true"}}));
  auto has_rule = [](const Json& role, const std::string& group, const std::string& resource,
                     const std::string& verb) {
    for (const Json& r : role["rules"]) {
      auto in = [](const Json& list, const std::string& v) {
        return std::find(list.begin(), list.end(), Json(v)) != list.end();
      };
      if (in(r.value("apiGroups", Json::array()), group) &&
          in(r.value("resources", Json::array()), resource) && in(r["verbs"], verb)) {
        return true;
      }
    }
    return false;
  };
  // admin aggregates edit, which aggregates view.
  REQUIRE(has_rule(admin, "rbac.authorization.k8s.io", "rolebindings", "create"));
  REQUIRE(has_rule(admin, "apps", "deployments", "create"));
  REQUIRE(has_rule(admin, "", "pods", "list"));
  Json view = h.get(kRbac + "/clusterroles/view").json();
  REQUIRE_FALSE(has_rule(view, "", "secrets", "get"));
  Json extra = {
      {"metadata",
       {{"name", "widgets-view"},
        {"labels", {{"rbac.authorization.k8s.io/aggregate-to-view", "true"}}}}},
      {"rules",
       {{{"apiGroups", {"example.com"}}, {"resources", {"widgets"}}, {"verbs", {"get"}}}}}};
  REQUIRE(h.post(kRbac + "/clusterroles", extra).status == 201);
  REQUIRE(has_rule(h.get(kRbac + "/clusterroles/view").json(), "example.com", "widgets", "get"));
  REQUIRE(has_rule(h.get(kRbac + "/clusterroles/admin").json(), "example.com", "widgets", "get"));
  REQUIRE(h.del(kRbac + "/clusterroles/widgets-view").status == 200);
  REQUIRE_FALSE(
      has_rule(h.get(kRbac + "/clusterroles/admin").json(), "example.com", "widgets", "get"));

  Json crb = h.get(kRbac + "/clusterrolebindings/cluster-admin").json();
  REQUIRE(crb["subjects"][0]["name"] == "system:masters");
  // Anonymous requests get system:public-info-viewer only.
  Request anon{"GET", "/version"};
  anon.authenticate = false;
  REQUIRE(h.call(anon).status == 200);
  anon.target = "/apis";
  auto denied = h.call(anon);
  REQUIRE(denied.status == 403);
  REQUIRE(denied.json()["message"] ==
          "forbidden: User \"system:anonymous\" cannot get path \"/apis\"");
}

TEST_CASE("authorization can be turned off", "[rbac]") {
  Harness h(nullptr, 10'000, false);
  std::string token = setup_reader(h);
  REQUIRE(as(h, token, "POST", "/api/v1/namespaces/team/pods", Json::parse(kPod)).status == 201);
}
