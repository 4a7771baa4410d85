// StatefulSets, CronJobs, ordinary Jobs, Endpoints/EndpointSlices and kube-root-ca.crt against
// an in-process API server on a 60x clock.

#include "test/simulator/sandbox_fixture.hpp"

#include "apimachinery/base64.hpp"
#include "sandbox/simulator/workload_resources.hpp"

using namespace respool;
using namespace respool::sandbox::test;
using respool::sandbox::sim::annotation;
using respool::sandbox::sim::condition_status;
using respool::sandbox::sim::label;
using respool::sandbox::sim::string_at;
namespace workload = respool::sandbox::sim::workload;

namespace {

const char* kTwoZones = R"(
nodes:
- flavor: cpu-16
  count: 2
  namePrefix: a
  zone: zone-a
  capacity: {cpu: "16", memory: 64Gi}
- flavor: cpu-16
  count: 1
  namePrefix: b
  zone: zone-b
  capacity: {cpu: "16", memory: 64Gi}
)";

std::vector<Json> live(Cluster& cluster, const std::string& selector,
                       const std::string& ns = "default") {
  std::vector<Json> out;
  for (const auto& p : cluster.items(kube::resources::pods, ns, selector))
    if (!p["metadata"].contains("deletionTimestamp")) out.push_back(p);
  return out;
}

Json statefulset(int replicas, const std::string& image) {
  Json s = Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "StatefulSet",
    "metadata": {"name": "db", "namespace": "default"},
    "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
             "template": {"metadata": {"labels": {"app": "db"}},
                          "spec": {"containers": [{"name": "db", "image": ""}]}},
             "volumeClaimTemplates": [{"metadata": {"name": "data"},
               "spec": {"accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}}}}]}})");
  s["spec"]["replicas"] = replicas;
  s["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  return s;
}

}  // namespace

TEST_CASE("a StatefulSet makes ordered pods, claims and revisions, and rolls from the top",
          "[simulator][workloads]") {
  Cluster cluster(kTwoZones);
  cluster.create(workload::statefulsets, "default", statefulset(3, "postgres:16"));
  auto sts = [&] { return cluster.get(workload::statefulsets, "default", "db"); };
  REQUIRE(eventually([&] { return sts()["status"].value("readyReplicas", 0) == 3; }));
  Json s = sts()["status"];
  CHECK(s["replicas"] == 3);
  CHECK(s["availableReplicas"] == 3);
  CHECK(s["currentReplicas"] == 3);
  CHECK(s["updatedReplicas"] == 3);
  CHECK(s["observedGeneration"] == 1);
  CHECK(s["collisionCount"] == 0);
  const std::string revision = s.value("currentRevision", "");
  CHECK(revision == s.value("updateRevision", "-"));
  CHECK(revision.starts_with("db-"));

  // Ordered: each pod was created after its predecessor ran.
  auto pods = live(cluster, "app=db");
  REQUIRE(pods.size() == 3);
  std::map<std::string, Json> by_name;
  for (const auto& p : pods)
    by_name[string_at(p, {"metadata", "name"})] = p;
  REQUIRE(by_name.contains("db-0"));
  REQUIRE(by_name.contains("db-2"));
  Json db1 = by_name["db-1"];
  CHECK(db1["spec"]["hostname"] == "db-1");
  CHECK(db1["spec"]["subdomain"] == "db");
  CHECK(label(db1, "statefulset.kubernetes.io/pod-name") == "db-1");
  CHECK(label(db1, "apps.kubernetes.io/pod-index") == "1");
  CHECK(label(db1, "controller-revision-hash") == revision);
  CHECK(db1["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "data-db-1");
  CHECK(string_at(by_name["db-0"], {"status", "startTime"}) <=
        string_at(by_name["db-2"], {"metadata", "creationTimestamp"}));
  CHECK(cluster.get(workload::persistentvolumeclaims, "default",
                    "data-db-2")["metadata"]["labels"]["app"] == "db");
  Json cr = cluster.get(workload::controllerrevisions, "default", revision);
  CHECK(cr["revision"] == 1);
  CHECK(cr["data"]["spec"]["template"]["$patch"] == "replace");

  // A new image: pods are replaced from db-2 down, and the revisions move.
  Json patch = {
      {"spec",
       {{"template", {{"spec", {{"containers", {{{"name", "db"}, {"image", "postgres:17"}}}}}}}}}}};
  REQUIRE(cluster.client().patch(workload::statefulsets, "default", "db", kube::PatchType::Merge,
                                 patch));
  REQUIRE(eventually([&] {
    Json st = sts()["status"];
    return st.value("currentRevision", "") == st.value("updateRevision", "-") &&
           st.value("currentRevision", "") != revision && st.value("updatedReplicas", 0) == 3 &&
           st.value("readyReplicas", 0) == 3;
  }));
  for (const auto& p : live(cluster, "app=db"))
    CHECK(p["spec"]["containers"][0]["image"] == "postgres:17");
  CHECK(cluster.items(workload::controllerrevisions, "default", "app=db").size() == 2);

  // Scale down: the highest ordinals go.
  REQUIRE(cluster.client().patch(workload::statefulsets, "default", "db", kube::PatchType::Merge,
                                 {{"spec", {{"replicas", 1}}}}));
  REQUIRE(eventually([&] { return live(cluster, "app=db").size() == 1; }));
  CHECK(string_at(live(cluster, "app=db")[0], {"metadata", "name"}) == "db-0");
}

TEST_CASE("Jobs without a node run their pods through the scheduler to completion",
          "[simulator][workloads]") {
  Cluster cluster(kTwoZones);
  Json job = Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "pi", "namespace": "default"},
    "spec": {"completions": 3, "parallelism": 2, "template": {
      "spec": {"restartPolicy": "Never",
               "containers": [{"name": "pi", "image": "perl:5.34"}]}}}})");
  cluster.create(kube::resources::jobs, "default", job);
  REQUIRE(eventually(
      [&] {
        return condition_status(cluster.get(kube::resources::jobs, "default", "pi"), "Complete") ==
               kube::ConditionStatus::True;
      },
      std::chrono::seconds(60)));
  Json done = cluster.get(kube::resources::jobs, "default", "pi");
  CHECK(done["status"]["succeeded"] == 3);
  auto pods = cluster.items(kube::resources::pods, "default", "job-name=pi");
  CHECK(pods.size() == 3);
  for (const auto& p : pods)
    CHECK(phase(p) == "Succeeded");
}

TEST_CASE("a CronJob starts Jobs on the injected clock and keeps its history",
          "[simulator][workloads]") {
  Cluster cluster(kTwoZones, 600);  // a minute is a tenth of a second
  Json cj = Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "CronJob",
    "metadata": {"name": "tick", "namespace": "default"},
    "spec": {"schedule": "* * * * *", "successfulJobsHistoryLimit": 2,
             "concurrencyPolicy": "Forbid",
             "jobTemplate": {"metadata": {"labels": {"app": "tick"}},
               "spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                 "containers": [{"name": "tick", "image": "busybox:1.36"}]}}}}}})");
  cluster.create(workload::cronjobs, "default", cj);
  auto status = [&] { return cluster.get(workload::cronjobs, "default", "tick")["status"]; };
  REQUIRE(eventually([&] { return status().contains("lastSuccessfulTime"); },
                     std::chrono::seconds(60)));
  // Three more minutes: still at most two finished Jobs kept.
  const std::string first = status().value("lastScheduleTime", "");
  REQUIRE(eventually(
      [&] {
        auto last = status().value("lastScheduleTime", "");
        return last > first &&
               cluster.items(kube::resources::jobs, "default", "app=tick").size() >= 2;
      },
      std::chrono::seconds(60)));
  CHECK(eventually([&] {
    int finished = 0;
    for (const auto& j : cluster.items(kube::resources::jobs, "default", "app=tick"))
      if (condition_status(j, "Complete") == kube::ConditionStatus::True) ++finished;
    return finished <= 2;
  }));
  Json any = cluster.items(kube::resources::jobs, "default", "app=tick")[0];
  const std::string name = string_at(any, {"metadata", "name"});
  CHECK(name.starts_with("tick-"));
  CHECK(any["metadata"]["ownerReferences"][0]["kind"] == "CronJob");
  CHECK(annotation(any, "batch.kubernetes.io/cronjob-scheduled-timestamp"));
  // The name is the scheduled minute since the epoch.
  auto scheduled = apimachinery::parse_time(
      annotation(any, "batch.kubernetes.io/cronjob-scheduled-timestamp").value_or(""));
  REQUIRE(scheduled);
  CHECK(name == "tick-" + std::to_string(std::chrono::duration_cast<std::chrono::minutes>(
                                             scheduled->time_since_epoch())
                                             .count()));

  // Suspended: no more Jobs.
  REQUIRE(cluster.client().patch(workload::cronjobs, "default", "tick", kube::PatchType::Merge,
                                 {{"spec", {{"suspend", true}}}}));
  // (A round already under way when the patch lands may still start one, later on a loaded
  // machine: wait until two looks two simulated minutes apart agree. Were the suspension
  // ignored, they never would, and the check below fails.)
  std::string at_suspend = status().value("lastScheduleTime", "");
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::string now = status().value("lastScheduleTime", "");
    if (now == at_suspend) break;
    at_suspend = now;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // four simulated minutes
  CHECK(status().value("lastScheduleTime", "") == at_suspend);
}

TEST_CASE("Services get Endpoints and EndpointSlices of their ready pods; namespaces the root CA",
          "[simulator][workloads]") {
  Cluster cluster(kTwoZones);
  Json svc = Json::parse(R"({
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "web", "namespace": "default", "labels": {"team": "a"}},
    "spec": {"selector": {"app": "web"},
             "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}})");
  cluster.create(kube::resources::services, "default", svc);
  // No pods yet: an Endpoints object without subsets and one placeholder slice.
  REQUIRE(eventually([&] {
    return !cluster.get(workload::endpoints, "default", "web").is_null() &&
           cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=web")
                   .size() == 1;
  }));
  Json placeholder =
      cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=web")[0];
  CHECK(placeholder["endpoints"].is_null());
  CHECK(placeholder["addressType"] == "IPv4");
  CHECK(label(placeholder, "endpointslice.kubernetes.io/managed-by") ==
        "endpointslice-controller.k8s.io");
  CHECK(label(placeholder, "team") == "a");
  CHECK(placeholder["metadata"]["ownerReferences"][0]["kind"] == "Service");
  CHECK(string_at(placeholder, {"metadata", "name"}).starts_with("web-"));

  for (const char* name : {"web-1", "web-2"}) {
    Json pod = simple_pod(name);
    pod["metadata"]["labels"] = {{"app", "web"}};
    pod["spec"]["containers"][0]["ports"] = {{{"name", "http"}, {"containerPort", 8080}}};
    cluster.create(kube::resources::pods, "default", pod);
  }
  REQUIRE(eventually([&] {
    Json ep = cluster.get(workload::endpoints, "default", "web");
    return ep.contains("subsets") && ep["subsets"][0].value("addresses", Json::array()).size() == 2;
  }));
  Json ep = cluster.get(workload::endpoints, "default", "web");
  CHECK(ep["subsets"][0]["ports"][0] ==
        Json({{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}}));
  CHECK(ep["subsets"][0]["addresses"][0]["targetRef"]["kind"] == "Pod");
  CHECK(ep["subsets"][0]["addresses"][0].contains("nodeName"));
  CHECK(label(ep, "team") == "a");
  CHECK(annotation(ep, "endpoints.kubernetes.io/last-change-trigger-time"));
  REQUIRE(eventually([&] {
    auto slices =
        cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=web");
    return slices.size() == 1 && slices[0]["endpoints"].is_array() &&
           slices[0]["endpoints"].size() == 2;
  }));
  Json slice =
      cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=web")[0];
  CHECK(slice["ports"][0] == Json({{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}}));
  const Json& e = slice["endpoints"][0];
  CHECK(e["conditions"] == Json({{"ready", true}, {"serving", true}, {"terminating", false}}));
  CHECK(e["zone"].get<std::string>().starts_with("zone-"));

  // A pod deleted: gone from Endpoints; kept in the slice as terminating until it is removed.
  REQUIRE(cluster.client().remove(kube::resources::pods, "default", "web-1"));
  CHECK(eventually([&] {
    Json now = cluster.get(workload::endpoints, "default", "web");
    return now["subsets"][0].value("addresses", Json::array()).size() == 1;
  }));
  CHECK(eventually([&] {
    auto slices =
        cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=web");
    return slices.size() == 1 && slices[0]["endpoints"].size() == 1;
  }));

  // The Service deleted: its Endpoints go, its slices with it.
  REQUIRE(cluster.client().remove(kube::resources::services, "default", "web"));
  CHECK(eventually([&] {
    return cluster.get(workload::endpoints, "default", "web").is_null() &&
           cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=web")
               .empty();
  }));

  // kube-root-ca.crt in every namespace, put back when deleted.
  cluster.create(kube::resources::namespaces, "",
                 {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team-a"}}}});
  REQUIRE(eventually([&] {
    return !cluster.get(kube::resources::configmaps, "team-a", "kube-root-ca.crt").is_null();
  }));
  Json ca = cluster.get(kube::resources::configmaps, "team-a", "kube-root-ca.crt");
  CHECK(ca["data"]["ca.crt"].get<std::string>().starts_with("-----BEGIN CERTIFICATE-----"));
  CHECK(annotation(ca, "kubernetes.io/description"));
  CHECK(!cluster.get(kube::resources::configmaps, "kube-system", "kube-root-ca.crt").is_null());
  REQUIRE(cluster.client().remove(kube::resources::configmaps, "team-a", "kube-root-ca.crt"));
  CHECK(eventually([&] {
    return !cluster.get(kube::resources::configmaps, "team-a", "kube-root-ca.crt").is_null();
  }));
}

TEST_CASE("the kubernetes Service names the API server; the endpoints controllers leave it be",
          "[simulator][workloads]") {
  Cluster cluster(kTwoZones);
  Json svc = cluster.get(kube::resources::services, "default", "kubernetes");
  REQUIRE_FALSE(svc.is_null());
  CHECK(svc["spec"]["clusterIP"] == "10.96.0.1");
  CHECK(svc["spec"]["type"] == "ClusterIP");
  CHECK_FALSE(svc["spec"].contains("selector"));
  CHECK(label(svc, "provider") == "kubernetes");
  CHECK(svc["spec"]["ports"][0]["port"] == 443);
  const std::string url = cluster.sandbox().cluster_config().server;
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  CHECK(svc["spec"]["ports"][0]["targetPort"] == port);
  const Json expected_port = {{"name", "https"}, {"port", port}, {"protocol", "TCP"}};
  // A Service of the same namespace made and gone, so that both controllers have run there.
  Json web = {{"apiVersion", "v1"},
              {"kind", "Service"},
              {"metadata", {{"name", "web"}}},
              {"spec", {{"selector", {{"app", "web"}}}, {"ports", {{{"port", 80}}}}}}};
  cluster.create(kube::resources::services, "default", web);
  REQUIRE(eventually([&] {
    return cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=web")
               .size() == 1;
  }));
  Json ep = cluster.get(workload::endpoints, "default", "kubernetes");
  CHECK(ep["subsets"][0]["addresses"][0]["ip"] == "127.0.0.1");
  CHECK(ep["subsets"][0]["ports"][0] == expected_port);
  CHECK(label(ep, "endpointslice.kubernetes.io/skip-mirror") == "true");
  Json slices =
      cluster.items(workload::endpointslices, "default", "kubernetes.io/service-name=kubernetes");
  REQUIRE(slices.size() == 1);
  CHECK(string_at(slices[0], {"metadata", "name"}) == "kubernetes");
  CHECK(slices[0]["endpoints"][0]["addresses"][0] == "127.0.0.1");
  CHECK(slices[0]["ports"][0] == expected_port);
  CHECK_FALSE(label(slices[0], "endpointslice.kubernetes.io/managed-by"));
}

TEST_CASE("a hand-made ServiceAccount token Secret gets a working token",
          "[simulator][workloads]") {
  Cluster cluster(kTwoZones);
  cluster.create(
      kube::resources::serviceaccounts, "default",
      {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "builder"}}}});
  Json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"type", "kubernetes.io/service-account-token"},
                 {"metadata",
                  {{"name", "builder-token"},
                   {"annotations", {{"kubernetes.io/service-account.name", "builder"}}}}}};
  cluster.create(kube::resources::secrets, "default", secret);
  auto get = [&] { return cluster.get(kube::resources::secrets, "default", "builder-token"); };
  REQUIRE(eventually([&] { return get()["data"].contains("token"); }));
  Json filled = get();
  CHECK(annotation(filled, "kubernetes.io/service-account.uid") ==
        string_at(cluster.get(kube::resources::serviceaccounts, "default", "builder"),
                  {"metadata", "uid"}));
  CHECK(apimachinery::base64_decode(filled["data"]["namespace"].get<std::string>()) == "default");
  CHECK(apimachinery::base64_decode(filled["data"]["ca.crt"].get<std::string>())
            ->starts_with("-----BEGIN CERTIFICATE-----"));
  // The token authenticates as the ServiceAccount (which may do nothing: 403, not 401).
  kube::ClusterConfig config = cluster.sandbox().cluster_config();
  config.token = *apimachinery::base64_decode(filled["data"]["token"].get<std::string>());
  auto as_builder = kube::Client::create(config);
  REQUIRE(as_builder);
  auto denied = (*as_builder)->get(kube::resources::secrets, "default", "builder-token");
  REQUIRE_FALSE(denied);
  CHECK(denied.error().is(kube::Error::Kind::Forbidden));
  CHECK(denied.error().describe().find("system:serviceaccount:default:builder") !=
        std::string::npos);
  // The ServiceAccount gone, its token Secret goes.
  REQUIRE(cluster.client().remove(kube::resources::serviceaccounts, "default", "builder"));
  CHECK(eventually([&] { return get().is_null(); }));
}
