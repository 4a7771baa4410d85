// The default ClusterRoles and ClusterRoleBindings a kube-apiserver v1.32 bootstraps that
// users meet (the roles of system components are left out): cluster-admin, admin, edit and view
// with the aggregate-to-* roles they aggregate, system:discovery, system:basic-user,
// system:public-info-viewer, system:auth-delegator, and their bindings.

#include "sandbox/apiserver/rbac/bootstrap_policy.hpp"

namespace respool::sandbox::rbac {
namespace {

const char* const kWrite = R"(["create","delete","deletecollection","patch","update"])";
const char* const kRead = R"(["get","list","watch"])";

Json rule(Json groups, Json resources, const char* verbs) {
  return {{"apiGroups", std::move(groups)},
          {"resources", std::move(resources)},
          {"verbs", Json::parse(verbs)}};
}

Json urls(Json list) {
  return {{"nonResourceURLs", std::move(list)}, {"verbs", {"get"}}};
}

Json meta(const std::string& name, Json labels = Json::object()) {
  labels["kubernetes.io/bootstrapping"] = "rbac-defaults";
  return {{"name", name},
          {"labels", labels},
          {"annotations", {{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

Json role(const std::string& name, Json rules, Json labels = Json::object()) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", meta(name, std::move(labels))},
          {"rules", std::move(rules)}};
}

Json aggregated(const std::string& name, const std::string& selector, Json labels) {
  Json r = role(name, nullptr, std::move(labels));
  r["aggregationRule"] = {
      {"clusterRoleSelectors",
       {{{"matchLabels", {{"rbac.authorization.k8s.io/aggregate-to-" + selector, "true"}}}}}}};
  return r;
}

Json binding(const std::string& name, const std::string& role_name, Json groups) {
  Json subjects = Json::array();
  for (const Json& g : groups) {
    subjects.push_back({{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", g}});
  }
  return {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", meta(name)},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role_name}}},
      {"subjects", subjects}};
}

Json label(const char* to) {
  return {{std::string("rbac.authorization.k8s.io/aggregate-to-") + to, "true"}};
}

}  // namespace

std::vector<Json> bootstrap_cluster_roles() {
  std::vector<Json> out;
  out.push_back(aggregated("admin", "admin", Json::object()));
  out.push_back(role("cluster-admin", {rule({"*"}, {"*"}, R"(["*"])"),
                                       {{"nonResourceURLs", {"*"}}, {"verbs", {"*"}}}}));
  out.push_back(aggregated("edit", "edit", label("admin")));
  out.push_back(role(
      "system:aggregate-to-admin",
      {rule({"authorization.k8s.io"}, {"localsubjectaccessreviews"}, R"(["create"])"),
       rule({"rbac.authorization.k8s.io"}, {"rolebindings", "roles"},
            R"(["create","delete","deletecollection","get","list","patch","update","watch"])")},
      label("admin")));
  out.push_back(role(
      "system:aggregate-to-edit",
      {rule({""},
            {"pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
             "services/proxy"},
            kRead),
       rule({""}, {"serviceaccounts"}, R"(["impersonate"])"),
       rule({""}, {"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"}, kWrite),
       rule({""}, {"pods/eviction"}, R"(["create"])"),
       rule({""},
            {"configmaps", "persistentvolumeclaims", "replicationcontrollers",
             "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
             "services/proxy"},
            kWrite),
       rule({""}, {"serviceaccounts/token"}, R"(["create"])"),
       rule({"", "events.k8s.io"}, {"events"}, kWrite),
       rule({"apps"},
            {"daemonsets", "deployments", "deployments/rollback", "deployments/scale",
             "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"},
            kWrite),
       rule({"autoscaling"}, {"horizontalpodautoscalers"}, kWrite),
       rule({"batch"}, {"cronjobs", "jobs"}, kWrite),
       rule({"extensions"},
            {"daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses",
             "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"},
            kWrite),
       rule({"policy"}, {"poddisruptionbudgets"}, kWrite),
       rule({"networking.k8s.io"}, {"ingresses", "networkpolicies"}, kWrite),
       rule({"coordination.k8s.io"}, {"leases"},
            R"(["create","delete","deletecollection","get","list","patch","update","watch"])"),
       rule({"resource.k8s.io"}, {"resourceclaims", "resourceclaimtemplates"}, kWrite)},
      label("edit")));
  out.push_back(role(
      "system:aggregate-to-view",
      {rule({""},
            {"configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
             "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
             "services", "services/status"},
            kRead),
       rule({""},
            {"bindings", "limitranges", "namespaces/status", "pods/log", "pods/status",
             "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"},
            kRead),
       rule({""}, {"namespaces"}, kRead), rule({"", "events.k8s.io"}, {"events"}, kRead),
       rule({"discovery.k8s.io"}, {"endpointslices"}, kRead),
       rule({"apps"},
            {"controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
             "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
             "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status"},
            kRead),
       rule({"autoscaling"}, {"horizontalpodautoscalers", "horizontalpodautoscalers/status"},
            kRead),
       rule({"batch"}, {"cronjobs", "cronjobs/status", "jobs", "jobs/status"}, kRead),
       rule(
           {"extensions"},
           {"daemonsets", "daemonsets/status", "deployments", "deployments/scale",
            "deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets",
            "replicasets/scale", "replicasets/status", "replicationcontrollers/scale"},
           kRead),
       rule({"policy"}, {"poddisruptionbudgets", "poddisruptionbudgets/status"}, kRead),
       rule({"networking.k8s.io"}, {"ingresses", "ingresses/status", "networkpolicies"}, kRead),
       rule({"resource.k8s.io"},
            {"resourceclaims", "resourceclaims/status", "resourceclaimtemplates"}, kRead)},
      label("view")));
  out.push_back(role("system:auth-delegator",
                     {rule({"authentication.k8s.io"}, {"tokenreviews"}, R"(["create"])"),
                      rule({"authorization.k8s.io"}, {"subjectaccessreviews"}, R"(["create"])")}));
  out.push_back(
      role("system:basic-user",
           {rule({"authorization.k8s.io"}, {"selfsubjectaccessreviews", "selfsubjectrulesreviews"},
                 R"(["create"])"),
            rule({"authentication.k8s.io"}, {"selfsubjectreviews"}, R"(["create"])")}));
  out.push_back(role("system:discovery",
                     {urls({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                            "/openapi/*", "/readyz", "/version", "/version/"})}));
  out.push_back(role("system:public-info-viewer",
                     {urls({"/healthz", "/livez", "/readyz", "/version", "/version/"})}));
  out.push_back(aggregated("view", "view", label("edit")));
  return out;
}

std::vector<Json> bootstrap_cluster_role_bindings() {
  return {binding("cluster-admin", "cluster-admin", {"system:masters"}),
          binding("system:basic-user", "system:basic-user", {"system:authenticated"}),
          binding("system:discovery", "system:discovery", {"system:authenticated"}),
          binding("system:public-info-viewer", "system:public-info-viewer",
                  {"system:authenticated", "system:unauthenticated"})};
}

}  // namespace respool::sandbox::rbac
