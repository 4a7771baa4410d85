// The default ClusterRoles and ClusterRoleBindings a kube-apiserver v1.32 bootstraps that
// users meet (the roles of system components are left out): cluster-admin, admin, edit and view
// with the aggregate-to-* roles they aggregate, system:discovery, system:basic-user,
// system:public-info-viewer, system:auth-delegator, and their bindings.

#include "sandbox/apiserver/rbac/bootstrap_policy.hpp"

namespace respool::sandbox::rbac {
namespace {

const char* const kPolicyWrite = R"(["create","delete","deletecollection","patch","update"])";
const char* const kPolicyRead = R"(["get","list","watch"])";

Json policy_rule(Json groups, Json resources, const char* verbs) {
  return {{"apiGroups", std::move(groups)},
          {"resources", std::move(resources)},
          {"verbs", Json::parse(verbs)}};
}

Json policy_urls(Json list) {
  return {{"nonResourceURLs", std::move(list)}, {"verbs", {"get"}}};
}

Json policy_meta(const std::string& name, Json labels = Json::object()) {
  labels["kubernetes.io/bootstrapping"] = "rbac-defaults";
  return {{"name", name},
          {"labels", labels},
          {"annotations", {{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

Json policy_role(const std::string& name, Json rules, Json labels = Json::object()) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", policy_meta(name, std::move(labels))},
          {"rules", std::move(rules)}};
}

Json policy_aggregated(const std::string& name, const std::string& selector, Json labels) {
  Json r = policy_role(name, nullptr, std::move(labels));
  r["aggregationRule"] = {
      {"clusterRoleSelectors",
       {{{"matchLabels", {{"rbac.authorization.k8s.io/aggregate-to-" + selector, "true"}}}}}}};
  return r;
}

Json policy_binding(const std::string& name, const std::string& role_name, Json groups) {
  Json subjects = Json::array();
  for (const Json& g : groups) {
    subjects.push_back({{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", g}});
  }
  return {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", policy_meta(name)},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role_name}}},
      {"subjects", subjects}};
}

Json aggregate_label(const char* to) {
  return {{std::string("rbac.authorization.k8s.io/aggregate-to-") + to, "true"}};
}

}  // namespace

std::vector<Json> bootstrap_cluster_roles() {
  std::vector<Json> out;
  out.push_back(policy_aggregated("admin", "admin", Json::object()));
  out.push_back(policy_role("cluster-admin", {policy_rule({"*"}, {"*"}, R"(["*"])"),
                                              {{"nonResourceURLs", {"*"}}, {"verbs", {"*"}}}}));
  out.push_back(policy_aggregated("edit", "edit", aggregate_label("admin")));
  out.push_back(policy_role(
      "system:aggregate-to-admin",
      {policy_rule({"authorization.k8s.io"}, {"localsubjectaccessreviews"}, R"(["create"])"),
       policy_rule(
           {"rbac.authorization.k8s.io"}, {"rolebindings", "roles"},
           R"(["create","delete","deletecollection","get","list","patch","update","watch"])")},
      aggregate_label("admin")));
  out.push_back(policy_role(
      "system:aggregate-to-edit",
      {policy_rule({""},
                   {"pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
                    "services/proxy"},
                   kPolicyRead),
       policy_rule({""}, {"serviceaccounts"}, R"(["impersonate"])"),
       policy_rule({""}, {"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"},
                   kPolicyWrite),
       policy_rule({""}, {"pods/eviction"}, R"(["create"])"),
       policy_rule({""},
                   {"configmaps", "persistentvolumeclaims", "replicationcontrollers",
                    "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
                    "services/proxy"},
                   kPolicyWrite),
       policy_rule({""}, {"serviceaccounts/token"}, R"(["create"])"),
       policy_rule({"", "events.k8s.io"}, {"events"}, kPolicyWrite),
       policy_rule({"apps"},
                   {"daemonsets", "deployments", "deployments/rollback", "deployments/scale",
                    "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"},
                   kPolicyWrite),
       policy_rule({"autoscaling"}, {"horizontalpodautoscalers"}, kPolicyWrite),
       policy_rule({"batch"}, {"cronjobs", "jobs"}, kPolicyWrite),
       policy_rule(
           {"extensions"},
           {"daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses",
            "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"},
           kPolicyWrite),
       policy_rule({"policy"}, {"poddisruptionbudgets"}, kPolicyWrite),
       policy_rule({"networking.k8s.io"}, {"ingresses", "networkpolicies"}, kPolicyWrite),
       policy_rule(
           {"coordination.k8s.io"}, {"leases"},
           R"(["create","delete","deletecollection","get","list","patch","update","watch"])"),
       policy_rule({"resource.k8s.io"}, {"resourceclaims", "resourceclaimtemplates"},
                   kPolicyWrite)},
      aggregate_label("edit")));
  out.push_back(policy_role(
      "system:aggregate-to-view",
      {policy_rule(
           {""},
           {"configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
            "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
            "services", "services/status"},
           kPolicyRead),
       policy_rule({""},
                   {"bindings", "limitranges", "namespaces/status", "pods/log", "pods/status",
                    "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"},
                   kPolicyRead),
       policy_rule({""}, {"namespaces"}, kPolicyRead),
       policy_rule({"", "events.k8s.io"}, {"events"}, kPolicyRead),
       policy_rule({"discovery.k8s.io"}, {"endpointslices"}, kPolicyRead),
       policy_rule(
           {"apps"},
           {"controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
            "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
            "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status"},
           kPolicyRead),
       policy_rule({"autoscaling"}, {"horizontalpodautoscalers", "horizontalpodautoscalers/status"},
                   kPolicyRead),
       policy_rule({"batch"}, {"cronjobs", "cronjobs/status", "jobs", "jobs/status"}, kPolicyRead),
       policy_rule(
           {"extensions"},
           {"daemonsets", "daemonsets/status", "deployments", "deployments/scale",
            "deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets",
            "replicasets/scale", "replicasets/status", "replicationcontrollers/scale"},
           kPolicyRead),
       policy_rule({"policy"}, {"poddisruptionbudgets", "poddisruptionbudgets/status"},
                   kPolicyRead),
       policy_rule({"networking.k8s.io"}, {"ingresses", "ingresses/status", "networkpolicies"},
                   kPolicyRead),
       policy_rule({"resource.k8s.io"},
                   {"resourceclaims", "resourceclaims/status", "resourceclaimtemplates"},
                   kPolicyRead)},
      aggregate_label("view")));
  out.push_back(policy_role(
      "system:auth-delegator",
      {policy_rule({"authentication.k8s.io"}, {"tokenreviews"}, R"(["create"])"),
       policy_rule({"authorization.k8s.io"}, {"subjectaccessreviews"}, R"(["create"])")}));
  out.push_back(policy_role(
      "system:basic-user",
      {policy_rule({"authorization.k8s.io"},
                   {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}, R"(["create"])"),
       policy_rule({"authentication.k8s.io"}, {"selfsubjectreviews"}, R"(["create"])")}));
  out.push_back(
      policy_role("system:discovery",
                  {policy_urls({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                "/openapi", "/openapi/*", "/readyz", "/version", "/version/"})}));
  out.push_back(
      policy_role("system:public-info-viewer",
                  {policy_urls({"/healthz", "/livez", "/readyz", "/version", "/version/"})}));
  out.push_back(policy_aggregated("view", "view", aggregate_label("edit")));
  return out;
}

std::vector<Json> bootstrap_cluster_role_bindings() {
  return {policy_binding("cluster-admin", "cluster-admin", {"system:masters"}),
          policy_binding("system:basic-user", "system:basic-user", {"system:authenticated"}),
          policy_binding("system:discovery", "system:discovery", {"system:authenticated"}),
          policy_binding("system:public-info-viewer", "system:public-info-viewer",
                         {"system:authenticated", "system:unauthenticated"})};
}

}  // namespace respool::sandbox::rbac
