// Deployments, ReplicaSets and ReplicationControllers against an in-process API server, as
// kubectl drives them (scale subresource, template patches, rollbacks by template).

#include "test/simulator/sandbox_fixture.hpp"

#include "sandbox/simulator/workload_resources.hpp"

using namespace respool;
using namespace respool::sandbox::test;
using respool::sandbox::sim::annotation;
using respool::sandbox::sim::find_condition;
using respool::sandbox::sim::label;
using respool::sandbox::sim::string_at;
namespace workload = respool::sandbox::sim::workload;

namespace {

const char* kThreeNodes = R"(
nodes:
- flavor: cpu-16
  count: 3
  namePrefix: w
  capacity: {cpu: "16", memory: 64Gi}
)";

Json deployment(const std::string& name, int replicas, const std::string& image,
                Json strategy = Json::object()) {
  Json d = Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "", "namespace": "default"},
    "spec": {"selector": {"matchLabels": {"app": ""}},
             "template": {"metadata": {"labels": {"app": ""}},
                          "spec": {"containers": [{"name": "web", "image": ""}]}}}})");
  d["metadata"]["name"] = name;
  d["spec"]["replicas"] = replicas;
  d["spec"]["selector"]["matchLabels"]["app"] = name;
  d["spec"]["template"]["metadata"]["labels"]["app"] = name;
  d["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  if (!strategy.empty()) d["spec"]["strategy"] = strategy;
  return d;
}

Json get_deployment(Cluster& cluster, const std::string& name) {
  return cluster.get(kube::resources::deployments, "default", name);
}

// Rolled out as kubectl rollout status decides it.
bool rolled_out(Cluster& cluster, const std::string& name, int replicas) {
  Json d = get_deployment(cluster, name);
  const Json& s = d["status"];
  return d["metadata"].value("generation", 0) <= s.value("observedGeneration", 0) &&
         s.value("updatedReplicas", 0) == replicas && s.value("replicas", 0) == replicas &&
         s.value("availableReplicas", 0) == replicas;
}

std::vector<Json> live_pods(Cluster& cluster, const std::string& selector) {
  std::vector<Json> out;
  for (const auto& p : cluster.items(kube::resources::pods, "default", selector))
    if (!p["metadata"].contains("deletionTimestamp")) out.push_back(p);
  return out;
}

std::map<std::string, Json> sets_by_revision(Cluster& cluster, const std::string& app) {
  std::map<std::string, Json> out;
  for (const auto& rs : cluster.items(workload::replicasets, "default", "app=" + app))
    out[annotation(rs, "deployment.kubernetes.io/revision").value_or("")] = rs;
  return out;
}

void set_image(Cluster& cluster, const std::string& name, const std::string& image) {
  Json patch = {
      {"spec",
       {{"template", {{"spec", {{"containers", {{{"name", "web"}, {"image", image}}}}}}}}}}};
  REQUIRE(cluster.client().patch(kube::resources::deployments, "default", name,
                                 kube::PatchType::Merge, patch));
}

}  // namespace

TEST_CASE("a Deployment rolls out, updates, rolls back and scales through ReplicaSets",
          "[simulator][workloads]") {
  Cluster cluster(kThreeNodes);
  cluster.create(kube::resources::deployments, "default", deployment("web", 3, "nginx:1.25"));
  REQUIRE(eventually([&] { return rolled_out(cluster, "web", 3); }));

  Json d = get_deployment(cluster, "web");
  CHECK(annotation(d, "deployment.kubernetes.io/revision") == "1");
  CHECK(d["status"]["readyReplicas"] == 3);
  CHECK(d["status"]["observedGeneration"] == 1);
  CHECK_FALSE(d["status"].contains("unavailableReplicas"));
  REQUIRE(d["status"]["conditions"].size() == 2);
  CHECK(d["status"]["conditions"][0]["type"] == "Available");
  CHECK(d["status"]["conditions"][0]["reason"] == "MinimumReplicasAvailable");
  CHECK(d["status"]["conditions"][0]["message"] == "Deployment has minimum availability.");
  CHECK(d["status"]["conditions"][1]["type"] == "Progressing");
  CHECK(d["status"]["conditions"][1]["reason"] == "NewReplicaSetAvailable");
  CHECK(d["status"]["conditions"][1].contains("lastUpdateTime"));

  auto sets = sets_by_revision(cluster, "web");
  REQUIRE(sets.size() == 1);
  Json first = sets["1"];
  const std::string hash = label(first, "pod-template-hash").value_or("");
  CHECK_FALSE(hash.empty());
  CHECK(string_at(first, {"metadata", "name"}) == "web-" + hash);
  CHECK(first["spec"]["selector"]["matchLabels"]["pod-template-hash"] == hash);
  CHECK(first["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] == hash);
  CHECK(annotation(first, "deployment.kubernetes.io/desired-replicas") == "3");
  CHECK(annotation(first, "deployment.kubernetes.io/max-replicas") == "4");  // 25% surge of 3
  CHECK(first["metadata"]["ownerReferences"][0]["kind"] == "Deployment");
  CHECK(first["status"]["replicas"] == 3);
  CHECK(first["status"]["fullyLabeledReplicas"] == 3);
  auto pods = live_pods(cluster, "app=web");
  REQUIRE(pods.size() == 3);
  for (const auto& p : pods) {
    CHECK(string_at(p, {"metadata", "name"}).starts_with("web-" + hash + "-"));
    CHECK(p["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet");
    CHECK(label(p, "pod-template-hash") == hash);
  }

  // kubectl set image: a new ReplicaSet at revision 2 takes over; the old one stays at 0.
  set_image(cluster, "web", "nginx:1.26");
  REQUIRE(eventually([&] {
    return rolled_out(cluster, "web", 3) &&
           annotation(get_deployment(cluster, "web"), "deployment.kubernetes.io/revision") == "2";
  }));
  sets = sets_by_revision(cluster, "web");
  REQUIRE(sets.size() == 2);
  CHECK(sets["1"]["spec"]["replicas"] == 0);
  CHECK(sets["2"]["spec"]["replicas"] == 3);
  CHECK(eventually([&] {
    auto now = live_pods(cluster, "app=web");
    return now.size() == 3 && std::all_of(now.begin(), now.end(), [&](const Json& p) {
             return p["spec"]["containers"][0]["image"] == "nginx:1.26";
           });
  }));

  // kubectl rollout undo: the template of revision 1 patched back; that ReplicaSet is reused
  // as revision 3 and remembers it was 1.
  Json old_template = sets["1"]["spec"]["template"];
  old_template["metadata"]["labels"].erase("pod-template-hash");
  Json undo =
      Json::array({{{"op", "replace"}, {"path", "/spec/template"}, {"value", old_template}}});
  REQUIRE(cluster.client().patch(kube::resources::deployments, "default", "web",
                                 kube::PatchType::Json, undo));
  REQUIRE(eventually([&] {
    return rolled_out(cluster, "web", 3) &&
           annotation(get_deployment(cluster, "web"), "deployment.kubernetes.io/revision") == "3";
  }));
  sets = sets_by_revision(cluster, "web");
  REQUIRE(sets.contains("3"));
  CHECK(string_at(sets["3"], {"metadata", "name"}) == "web-" + hash);
  CHECK(annotation(sets["3"], "deployment.kubernetes.io/revision-history") == "1");

  // kubectl scale: through the scale subresource.
  kube::WriteOptions scale;
  scale.subresource = "scale";
  REQUIRE(cluster.client().patch(kube::resources::deployments, "default", "web",
                                 kube::PatchType::Merge, {{"spec", {{"replicas", 5}}}}, scale));
  REQUIRE(eventually([&] { return rolled_out(cluster, "web", 5); }));
  CHECK(annotation(sets_by_revision(cluster, "web")["3"],
                   "deployment.kubernetes.io/desired-replicas") == "5");
  CHECK(live_pods(cluster, "app=web").size() == 5);

  // The deployment controller's events, as kubectl describe shows them.
  CHECK(eventually([&] {
    for (const auto& e : cluster.items(kube::resources::events_v1, "default"))
      if (e.value("reason", "") == "ScalingReplicaSet" &&
          e.value("reportingController", "") == "deployment-controller")
        return true;
    return false;
  }));
}

TEST_CASE("Recreate replaces every pod; revisionHistoryLimit prunes old ReplicaSets",
          "[simulator][workloads]") {
  Cluster cluster(kThreeNodes);
  Json d = deployment("batch", 2, "worker:1", {{"type", "Recreate"}});
  d["spec"]["revisionHistoryLimit"] = 1;
  cluster.create(kube::resources::deployments, "default", d);
  REQUIRE(eventually([&] { return rolled_out(cluster, "batch", 2); }));
  for (const char* image : {"worker:2", "worker:3"}) {
    set_image(cluster, "batch", image);
    REQUIRE(eventually([&] {
      auto pods = live_pods(cluster, "app=batch");
      return rolled_out(cluster, "batch", 2) && pods.size() == 2 &&
             pods[0]["spec"]["containers"][0]["image"] == image;
    }));
  }
  CHECK(annotation(get_deployment(cluster, "batch"), "deployment.kubernetes.io/revision") == "3");
  // The current set and one old one.
  CHECK(eventually([&] {
    auto sets = sets_by_revision(cluster, "batch");
    return sets.size() == 2 && sets.contains("2") && sets.contains("3");
  }));
}

TEST_CASE("a ReplicaSet adopts matching orphans and scales down the least useful pods",
          "[simulator][workloads]") {
  Cluster cluster(kThreeNodes);
  // An orphan the deletion-cost annotation marks as the cheapest to lose.
  Json orphan =
      simple_pod("stray", Json::object(), {{"controller.kubernetes.io/pod-deletion-cost", "-5"}});
  orphan["metadata"]["labels"] = {{"tier", "cache"}};
  cluster.create(kube::resources::pods, "default", orphan);
  // Running: the simulator's pod cache (which the ReplicaSet controller shares) has it, so the
  // set adopts it rather than making a third pod first.
  REQUIRE(eventually([&] { return phase(cluster.pod("stray")) == "Running"; }));
  Json rs = Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "ReplicaSet",
    "metadata": {"name": "cache", "namespace": "default"},
    "spec": {"replicas": 3, "selector": {"matchLabels": {"tier": "cache"}},
             "template": {"metadata": {"labels": {"tier": "cache"}},
                          "spec": {"containers": [{"name": "c", "image": "redis:7"}]}}}})");
  cluster.create(workload::replicasets, "default", rs);
  REQUIRE(eventually([&] {
    Json s = cluster.get(workload::replicasets, "default", "cache")["status"];
    return s.value("replicas", 0) == 3 && s.value("readyReplicas", 0) == 3 &&
           s.value("availableReplicas", 0) == 3 && s.value("observedGeneration", 0) == 1;
  }));
  Json adopted = cluster.pod("stray");
  REQUIRE(adopted["metadata"].contains("ownerReferences"));
  CHECK(adopted["metadata"]["ownerReferences"][0]["name"] == "cache");
  CHECK(live_pods(cluster, "tier=cache").size() == 3);

  // Scaled down: the cheapest pod goes first.
  REQUIRE(cluster.client().patch(workload::replicasets, "default", "cache", kube::PatchType::Merge,
                                 {{"spec", {{"replicas", 2}}}}));
  REQUIRE(eventually([&] { return live_pods(cluster, "tier=cache").size() == 2; }));
  CHECK(eventually([&] { return cluster.pod("stray").is_null(); }));

  // Relabelled out of the selector: released, and replaced.
  Json keep = live_pods(cluster, "tier=cache")[0];
  const std::string released = string_at(keep, {"metadata", "name"});
  cluster.client().patch(kube::resources::pods, "default", released, kube::PatchType::Merge,
                         {{"metadata", {{"labels", {{"tier", "debug"}}}}}});
  CHECK(eventually([&] {
    return !cluster.pod(released)["metadata"].contains("ownerReferences") &&
           live_pods(cluster, "tier=cache").size() == 2;
  }));

  // ReplicationControllers: the same controller over core/v1.
  Json rc = Json::parse(R"({
    "apiVersion": "v1", "kind": "ReplicationController",
    "metadata": {"name": "legacy", "namespace": "default"},
    "spec": {"replicas": 2, "selector": {"app": "legacy"},
             "template": {"metadata": {"labels": {"app": "legacy"}},
                          "spec": {"containers": [{"name": "c", "image": "legacy:1"}]}}}})");
  cluster.create(workload::replicationcontrollers, "default", rc);
  CHECK(eventually([&] {
    Json s = cluster.get(workload::replicationcontrollers, "default", "legacy")["status"];
    return s.value("readyReplicas", 0) == 2;
  }));
  auto legacy = live_pods(cluster, "app=legacy");
  REQUIRE(legacy.size() == 2);
  CHECK(legacy[0]["metadata"]["ownerReferences"][0]["kind"] == "ReplicationController");
}

TEST_CASE("an HPA holds its Deployment within its bounds and reports the missing metrics",
          "[simulator][workloads][hpa]") {
  Cluster cluster(kThreeNodes);
  cluster.create(kube::resources::deployments, "default", deployment("web", 1, "nginx:1.25"));
  Json hpa = Json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
             "minReplicas": 3, "maxReplicas": 5,
             "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                          "target": {"type": "Utilization", "averageUtilization": 80}}}]}})");
  cluster.create(workload::horizontalpodautoscalers, "default", hpa);
  auto get_hpa = [&] { return cluster.get(workload::horizontalpodautoscalers, "default", "web"); };
  // Below minReplicas: scaled up to it through the scale subresource.
  REQUIRE(eventually([&] {
    return cluster.get(kube::resources::deployments, "default", "web")["spec"]["replicas"] == 3;
  }));
  CHECK(eventually([&] { return get_hpa()["status"].contains("lastScaleTime"); }));
  CHECK(get_hpa()["status"]["desiredReplicas"] == 3);
  // The next sync (15 simulated seconds on): within bounds, no metrics API.
  REQUIRE(eventually([&] {
    const Json now = get_hpa();
    return find_condition(now, "ScalingActive") != nullptr;
  }));
  Json status = get_hpa()["status"];
  CHECK(status["currentReplicas"] == 3);
  const Json synced = get_hpa();
  const Json* active = find_condition(synced, "ScalingActive");
  CHECK((*active)["reason"] == "FailedGetResourceMetric");
  CHECK((*active)["message"].get<std::string>().ends_with("(get pods.metrics.k8s.io)"));
  auto has_event = [&](const std::string& reason) {
    for (const Json& e : cluster.items(kube::resources::events, "default"))
      if (e["reason"] == reason && e["involvedObject"]["kind"] == "HorizontalPodAutoscaler")
        return true;
    return false;
  };
  CHECK(has_event("SuccessfulRescale"));
  CHECK(eventually([&] { return has_event("FailedComputeMetricsReplicas"); }));

  // A target that is not there.
  hpa["metadata"]["name"] = "ghost";
  hpa["spec"]["scaleTargetRef"]["name"] = "ghost";
  cluster.create(workload::horizontalpodautoscalers, "default", hpa);
  Json ghost;
  REQUIRE(eventually([&] {
    ghost = cluster.get(workload::horizontalpodautoscalers, "default", "ghost");
    const Json* able = find_condition(ghost, "AbleToScale");
    return able && (*able)["reason"] == "FailedGetScale";
  }));
  const Json* able = find_condition(ghost, "AbleToScale");
  CHECK((*able)["message"] ==
        "the HPA controller was unable to get the target's current scale: deployments.apps "
        "\"ghost\" not found");
}
