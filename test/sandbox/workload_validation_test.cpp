// Deployments, ReplicaSets, StatefulSets, Jobs and Services refused as kube-apiserver v1.32
// refuses them (pkg/apis/apps/validation, batch/validation, core/validation ValidateService),
// with the real 422 message and causes; and the Service storage's allocations and carry-over.

#include <catch2/catch.hpp>

#include "harness.hpp"
#include "invalid_reply.hpp"

using namespace respool::sandbox::testing;
using respool::sandbox::testing::invalid_message;
using respool::sandbox::testing::Json;

namespace {

const std::string kDeployments = "/apis/apps/v1/namespaces/default/deployments";
const std::string kReplicaSets = "/apis/apps/v1/namespaces/default/replicasets";
const std::string kStatefulSets = "/apis/apps/v1/namespaces/default/statefulsets";
const std::string kJobs = "/apis/batch/v1/namespaces/default/jobs";
const std::string kServices = "/api/v1/namespaces/default/services";

Json pod_template(const std::string& app) {
  return {{"metadata", {{"labels", {{"app", app}}}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "app:1"}}}}}}};
}

Json workload(const std::string& kind, const std::string& name) {
  return {{"apiVersion", "apps/v1"},
          {"kind", kind},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", name}}}}}, {"template", pod_template(name)}}}};
}

Json service(const std::string& name, Json ports) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}}},
          {"spec", {{"selector", {{"app", name}}}, {"ports", ports}}}};
}

}  // namespace

TEST_CASE("Deployments: selector, template, strategy and counts", "[validation][workloads]") {
  Harness h;
  REQUIRE(h.post(kDeployments, workload("Deployment", "web")).status == 201);

  Json bare = workload("Deployment", "bare");
  bare["spec"].erase("selector");
  CHECK(invalid_message(h.post(kDeployments, bare), 2) ==
        "Deployment.apps \"bare\" is invalid: [spec.selector: Required value, "
        "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"bare\"}: "
        "`selector` does not match template `labels`]");

  Json counts = workload("Deployment", "counts");
  counts["spec"]["replicas"] = -1;
  counts["spec"]["minReadySeconds"] = 30;
  counts["spec"]["progressDeadlineSeconds"] = 30;
  counts["spec"]["template"]["spec"]["restartPolicy"] = "Never";
  CHECK(invalid_message(h.post(kDeployments, counts), 3) ==
        "Deployment.apps \"counts\" is invalid: [spec.replicas: Invalid value: -1: must be greater "
        "than or equal to 0, spec.template.spec.restartPolicy: Unsupported value: \"Never\": "
        "supported values: \"Always\", spec.progressDeadlineSeconds: Invalid value: 30: must be "
        "greater than minReadySeconds]");

  Json zero = workload("Deployment", "zero");
  zero["spec"]["strategy"] = {{"rollingUpdate", {{"maxUnavailable", 0}, {"maxSurge", "0%"}}}};
  CHECK(invalid_message(h.post(kDeployments, zero), 1) ==
        "Deployment.apps \"zero\" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid "
        "value: intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: may not be 0 when `maxSurge` "
        "is 0");

  // kubectl apply switching RollingUpdate to Recreate keeps the merged rollingUpdate.
  Json web = h.get(kDeployments + "/web").json();
  web["spec"]["strategy"]["type"] = "Recreate";
  CHECK(invalid_message(h.put(kDeployments + "/web", web), 1) ==
        "Deployment.apps \"web\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be "
        "specified when strategy `type` is 'Recreate'");

  web = h.get(kDeployments + "/web").json();
  web["spec"]["selector"]["matchLabels"]["tier"] = "front";
  web["spec"]["template"]["metadata"]["labels"]["tier"] = "front";
  CHECK(invalid_message(h.put(kDeployments + "/web", web), 1) ==
        "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: "
        "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"front\"}, "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");

  // An update that leaves the strategy out gets the defaults again, as decoding gives them.
  web = h.get(kDeployments + "/web").json();
  web["spec"].erase("strategy");
  auto kept = h.put(kDeployments + "/web", web);
  REQUIRE(kept.status == 200);
  CHECK(kept.json()["spec"]["strategy"] ==
        Json{{"type", "RollingUpdate"},
             {"rollingUpdate", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}}}});
}

TEST_CASE("ReplicaSets and label selectors", "[validation][workloads]") {
  Harness h;
  Json rs = workload("ReplicaSet", "rs");
  rs["spec"]["selector"] = {
      {"matchExpressions", {{{"key", "app"}, {"operator", "In"}, {"values", Json::array()}}}}};
  CHECK(invalid_message(h.post(kReplicaSets, rs), 2) ==
        "ReplicaSet.apps \"rs\" is invalid: [spec.selector.matchExpressions[0].values: Required "
        "value: must be specified when `operator` is 'In' or 'NotIn', spec.selector: Invalid "
        "value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:\"app\", "
        "Operator:\"In\", Values:[]string{}}}}: invalid label selector]");
  Json empty = workload("ReplicaSet", "empty");
  empty["spec"]["selector"] = Json::object();
  empty["spec"]["template"]["spec"]["activeDeadlineSeconds"] = 10;
  CHECK(invalid_message(h.post(kReplicaSets, empty), 2) ==
        "ReplicaSet.apps \"empty\" is invalid: [spec.selector: Invalid value: "
        "v1.LabelSelector{MatchLabels:map[string]string(nil), "
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
        "deployment, spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds "
        "in ReplicaSet is not Supported]");
}

TEST_CASE("StatefulSets: what an update may change", "[validation][workloads]") {
  Harness h;
  Json db = workload("StatefulSet", "db");
  db["spec"]["serviceName"] = "db";
  REQUIRE(h.post(kStatefulSets, db).status == 201);
  Json live = h.get(kStatefulSets + "/db").json();
  live["spec"]["replicas"] = 3;
  live["spec"]["template"]["spec"]["containers"][0]["image"] = "app:2";
  REQUIRE(h.put(kStatefulSets + "/db", live).status == 200);
  live = h.get(kStatefulSets + "/db").json();
  live["spec"]["serviceName"] = "other";
  live["spec"]["podManagementPolicy"] = "Parallel";
  CHECK(invalid_message(h.put(kStatefulSets + "/db", live), 1) ==
        "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for "
        "fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
        "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");

  Json ondelete = workload("StatefulSet", "od");
  ondelete["spec"]["updateStrategy"] = {{"type", "OnDelete"}};
  ondelete["spec"]["persistentVolumeClaimRetentionPolicy"] = {{"whenDeleted", "Keep"}};
  CHECK(invalid_message(h.post(kStatefulSets, ondelete), 2) ==
        "StatefulSet.apps \"od\" is invalid: [spec.updateStrategy.rollingUpdate: Invalid value: "
        "apps.RollingUpdateStatefulSetStrategy{Partition:0, "
        "MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy "
        "'RollingUpdate', spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported "
        "value: \"Keep\": supported values: \"Retain\", \"Delete\"]");
}

TEST_CASE("Jobs: counts, completion mode and the template", "[validation][workloads]") {
  Harness h;
  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "train"}}},
              {"spec",
               {{"backoffLimit", -1},
                {"completionMode", "Indexed"},
                {"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers", {{{"name", "Bad_Name"}, {"image", "t:1"}}}}}}}}}}};
  CHECK(invalid_message(h.post(kJobs, job), 2) ==
        "Job.batch \"train\" is invalid: [spec.backoffLimit: Invalid value: -1: must be greater "
        "than or equal to 0, spec.template.spec.containers[0].name: Invalid value: \"Bad_Name\": "
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
        "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
        "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]");
  job["spec"]["backoffLimit"] = 2;
  job["spec"]["completions"] = 3;
  job["spec"]["template"]["spec"]["containers"][0]["name"] = "c";
  REQUIRE(h.post(kJobs, job).status == 201);
  Json live = h.get(kJobs + "/train").json();
  live["spec"]["completions"] = 4;
  CHECK(invalid_message(h.put(kJobs + "/train", live), 1) ==
        "Job.batch \"train\" is invalid: spec.completions: Invalid value: 4: can only be modified "
        "in tandem with spec.parallelism");
}

TEST_CASE("Services: ports, types and cluster IPs", "[validation][services]") {
  Harness h;
  Json two = service("two", {{{"port", 80}}, {{"port", 0}, {"protocol", "HTTP"}}});
  CHECK(invalid_message(h.post(kServices, two), 5) ==
        "Service \"two\" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: "
        "Required value, spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, "
        "inclusive, spec.ports[1].protocol: Unsupported value: \"HTTP\": supported values: "
        "\"SCTP\", \"TCP\", \"UDP\", spec.ports[1].targetPort: Invalid value: 0: must be between 1 "
        "and 65535, inclusive]");
  Json dup = service("dup", {{{"name", "a"}, {"port", 80}}, {{"name", "a"}, {"port", 80}}});
  CHECK(invalid_message(h.post(kServices, dup), 2) ==
        "Service \"dup\" is invalid: [spec.ports[1].name: Duplicate value: \"a\", spec.ports[1]: "
        "Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", "
        "AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, "
        "StrVal:\"\"}, NodePort:0}]");
  Json target = service("target", {{{"port", 80}, {"targetPort", "Web_Port"}}});
  CHECK(invalid_message(h.post(kServices, target), 1) ==
        "Service \"target\" is invalid: spec.ports[0].targetPort: Invalid value: \"Web_Port\": "
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");

  // Node ports are allocated; a ClusterIP Service may not have one.
  Json np = service("np", {{{"port", 80}}});
  np["spec"]["type"] = "NodePort";
  auto created = h.post(kServices, np);
  REQUIRE(created.status == 201);
  const Json port = created.json()["spec"]["ports"][0];
  CHECK(port["nodePort"].get<int>() >= 30000);
  CHECK(port["nodePort"].get<int>() <= 32767);
  CHECK(created.json()["spec"]["externalTrafficPolicy"] == "Cluster");
  Json cip = service("cip", {{{"port", 80}, {"nodePort", 30080}}});
  CHECK(invalid_message(h.post(kServices, cip), 1) ==
        "Service \"cip\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when "
        "`type` is 'ClusterIP'");

  // An update without clusterIP keeps it; changing it is refused.
  Json web = service("web", {{{"port", 80}}});
  auto made = h.post(kServices, web);
  REQUIRE(made.status == 201);
  const std::string ip = made.json()["spec"]["clusterIP"];
  Json replace = service("web", {{{"port", 8080}}});
  replace["metadata"]["resourceVersion"] = made.json()["metadata"]["resourceVersion"];
  auto replaced = h.put(kServices + "/web", replace);
  REQUIRE(replaced.status == 200);
  CHECK(replaced.json()["spec"]["clusterIP"] == ip);
  CHECK(replaced.json()["spec"]["clusterIPs"] == Json::array({ip}));
  Json moved = replaced.json();
  moved["spec"]["clusterIP"] = "10.96.77.77";
  CHECK(invalid_message(h.put(kServices + "/web", moved), 1) ==
        "Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: "
        "[]string{\"10.96.77.77\"}: may not change once set");
  // Switching to ExternalName drops the allocated fields the client left as they were.
  Json external = replaced.json();
  external["spec"]["type"] = "ExternalName";
  external["spec"]["externalName"] = "db.example.com.";
  auto switched = h.put(kServices + "/web", external);
  INFO(switched.body);
  REQUIRE(switched.status == 200);
  CHECK_FALSE(switched.json()["spec"].contains("clusterIP"));
}
