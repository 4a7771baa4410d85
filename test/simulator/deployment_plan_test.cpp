// The Deployment and ReplicaSet controllers' decisions, without a server.

#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/deployment_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/replicaset_plan.hpp"

using namespace respool::sandbox::sim;
using Json = nlohmann::json;

namespace {

const auto kNow = std::chrono::system_clock::time_point{std::chrono::seconds{1'767'225'600}};

Json make_deployment(int replicas, const std::string& image) {
  Json d = Json::parse(R"({
    "metadata": {"name": "web", "namespace": "default", "uid": "d-uid", "generation": 1,
                 "creationTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {"selector": {"matchLabels": {"app": "web"}},
             "strategy": {"type": "RollingUpdate",
                          "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
             "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "web", "image": ""}]}}},
    "status": {}})");
  d["spec"]["replicas"] = replicas;
  d["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  return d;
}

// A ReplicaSet the Deployment made for `image` at `revision`, with `ready` available pods.
Json make_set(const Json& d, const std::string& image, int revision, int replicas, int ready,
              int created_at_seconds = 0) {
  Json tmpl = d["spec"]["template"];
  tmpl["spec"]["containers"][0]["image"] = image;
  const std::string hash = pod_template_hash(tmpl, std::nullopt);
  tmpl["metadata"]["labels"]["pod-template-hash"] = hash;
  Json rs = {
      {"metadata",
       {{"name", "web-" + hash},
        {"namespace", "default"},
        {"uid", "rs-" + std::to_string(revision)},
        {"generation", 1},
        {"resourceVersion", "10"},
        {"creationTimestamp",
         respool::apimachinery::format_time(kNow - std::chrono::hours(10) +
                                            std::chrono::seconds(created_at_seconds))},
        {"labels", tmpl["metadata"]["labels"]},
        {"annotations",
         {{"deployment.kubernetes.io/revision", std::to_string(revision)},
          {"deployment.kubernetes.io/desired-replicas", std::to_string(int(d["spec"]["replicas"]))},
          {"deployment.kubernetes.io/max-replicas", "5"}}},
        {"ownerReferences",
         {{{"apiVersion", "apps/v1"},
           {"kind", "Deployment"},
           {"name", "web"},
           {"uid", "d-uid"},
           {"controller", true}}}}}},
      {"spec", {{"replicas", replicas}, {"template", tmpl}}},
      {"status",
       {{"replicas", ready},
        {"readyReplicas", ready},
        {"availableReplicas", ready},
        {"observedGeneration", 1}}}};
  return rs;
}

std::vector<const Json*> ptrs(const std::vector<Json>& v) {
  std::vector<const Json*> out;
  for (const auto& j : v)
    out.push_back(&j);
  return out;
}

const Json* condition(const Json& status, const std::string& type) {
  if (!status.contains("conditions")) return nullptr;
  for (const auto& c : status["conditions"])
    if (c["type"] == type) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("a new Deployment creates its first ReplicaSet", "[simulator][deployment]") {
  Json d = make_deployment(4, "nginx:1");
  DeploymentPlan plan = plan_deployment(d, {}, {}, kNow);
  REQUIRE(plan.create);
  const Json& rs = *plan.create;
  const std::string hash = pod_template_hash(d["spec"]["template"], std::nullopt);
  CHECK(rs["metadata"]["name"] == "web-" + hash);
  CHECK(rs["metadata"]["labels"] == Json({{"app", "web"}, {"pod-template-hash", hash}}));
  CHECK(rs["spec"]["selector"]["matchLabels"]["pod-template-hash"] == hash);
  CHECK(rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] == hash);
  CHECK(rs["spec"]["replicas"] == 4);  // min(replicas + surge - current, replicas)
  CHECK(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1");
  CHECK(rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "4");
  CHECK(rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "5");
  CHECK(rs["metadata"]["ownerReferences"][0]["uid"] == "d-uid");
  CHECK(plan.annotations["deployment.kubernetes.io/revision"] == "1");
  CHECK(plan.status["observedGeneration"] == 1);
  CHECK(plan.status["unavailableReplicas"] == 4);
  const Json* progressing = condition(plan.status, "Progressing");
  REQUIRE(progressing);
  CHECK((*progressing)["reason"] == "NewReplicaSetCreated");
  CHECK((*progressing)["message"] == "Created new replica set \"web-" + hash + "\"");
  CHECK((*condition(plan.status, "Available"))["reason"] == "MinimumReplicasUnavailable");
  REQUIRE(plan.events.size() == 1);
  CHECK(plan.events[0].message == "Scaled up replica set web-" + hash + " to 4");
  // Names differ with the template and with the collision count.
  CHECK(pod_template_hash(d["spec"]["template"], 1) != hash);
  CHECK(pod_template_hash(make_deployment(4, "nginx:2")["spec"]["template"], std::nullopt) != hash);
}

TEST_CASE("a rolling update surges the new set and shrinks the old within the budgets",
          "[simulator][deployment]") {
  Json d = make_deployment(4, "nginx:2");
  std::vector<Json> sets = {make_set(d, "nginx:1", 1, 4, 4)};
  d["status"] = {
      {"observedGeneration", 1}, {"replicas", 4}, {"updatedReplicas", 4}, {"availableReplicas", 4}};
  DeploymentPlan plan = plan_deployment(d, ptrs(sets), {}, kNow);
  REQUIRE(plan.create);
  CHECK((*plan.create)["spec"]["replicas"] == 1);  // 4 + 1 surge - 4 existing
  CHECK((*plan.create)["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2");
  REQUIRE(plan.update.size() == 1);  // the old set loses one: 4 available, at least 3 kept
  CHECK(plan.update[0]["metadata"]["name"] == sets[0]["metadata"]["name"]);
  CHECK(plan.update[0]["spec"]["replicas"] == 3);
  CHECK(plan.annotations["deployment.kubernetes.io/revision"] == "2");

  // Later: the new set at 2 with one available, the old at 3 all available. Total 5 = the
  // ceiling, so no growth; availability 4 > 3, so the old shrinks by one.
  Json fresh = make_set(d, "nginx:2", 2, 2, 1, 60);
  sets = {make_set(d, "nginx:1", 1, 3, 3), fresh};
  plan = plan_deployment(d, ptrs(sets), {}, kNow);
  CHECK_FALSE(plan.create);
  REQUIRE(plan.update.size() == 1);
  CHECK(plan.update[0]["spec"]["replicas"] == 2);
  CHECK(plan.events.back().message ==
        "Scaled down replica set " + std::string(sets[0]["metadata"]["name"]) + " to 2 from 3");
}

TEST_CASE("a complete rollout reports NewReplicaSetAvailable and trims history",
          "[simulator][deployment]") {
  Json d = make_deployment(2, "nginx:2");
  d["spec"]["revisionHistoryLimit"] = 0;
  Json old_set = make_set(d, "nginx:1", 1, 0, 0);
  old_set["status"] = {{"replicas", 0}, {"observedGeneration", 1}};
  std::vector<Json> sets = {old_set, make_set(d, "nginx:2", 2, 2, 2, 60)};
  d["status"] = {{"observedGeneration", 1},
                 {"replicas", 2},
                 {"updatedReplicas", 2},
                 {"readyReplicas", 2},
                 {"availableReplicas", 2},
                 {"conditions",
                  {{{"type", "Progressing"},
                    {"status", "True"},
                    {"reason", "ReplicaSetUpdated"},
                    {"lastUpdateTime", "2026-01-01T00:00:00Z"},
                    {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}};
  d["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "2"}};
  DeploymentPlan plan = plan_deployment(d, ptrs(sets), {}, kNow);
  CHECK_FALSE(plan.create);
  CHECK(plan.update.empty());
  CHECK(plan.remove == std::vector<std::string>{old_set["metadata"]["name"]});
  CHECK(plan.annotations.is_null());
  const Json* progressing = condition(plan.status, "Progressing");
  REQUIRE(progressing);
  CHECK((*progressing)["reason"] == "NewReplicaSetAvailable");
  CHECK((*progressing)["message"] == "ReplicaSet \"" + std::string(sets[1]["metadata"]["name"]) +
                                         "\" has successfully progressed.");
  CHECK((*progressing)["lastTransitionTime"] == "2026-01-01T00:00:00Z");  // still True
  CHECK(plan.status["conditions"].back()["type"] == "Progressing");
  CHECK((*condition(plan.status, "Available"))["status"] == "True");
  CHECK_FALSE(plan.status.contains("unavailableReplicas"));
}

TEST_CASE("rolling back reuses the old set as the next revision", "[simulator][deployment]") {
  Json d = make_deployment(2, "nginx:1");  // the template of revision 1 again
  Json old_set = make_set(d, "nginx:1", 1, 0, 0);
  old_set["metadata"]["annotations"]["kubernetes.io/change-cause"] = "first";
  std::vector<Json> sets = {old_set, make_set(d, "nginx:2", 2, 2, 2, 60)};
  d["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "2"}};
  DeploymentPlan plan = plan_deployment(d, ptrs(sets), {}, kNow);
  CHECK_FALSE(plan.create);
  REQUIRE_FALSE(plan.update.empty());
  const Json& reused = plan.update[0];
  CHECK(reused["metadata"]["name"] == old_set["metadata"]["name"]);
  CHECK(reused["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3");
  CHECK(reused["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1");
  CHECK(reused["spec"]["replicas"] == 1);  // and it starts to grow
  CHECK(plan.annotations["deployment.kubernetes.io/revision"] == "3");
}

TEST_CASE("scaling a Deployment scales its sets, proportionally during a rollout",
          "[simulator][deployment]") {
  Json d = make_deployment(8, "nginx:1");
  std::vector<Json> one = {make_set(make_deployment(4, "nginx:1"), "nginx:1", 1, 4, 4)};
  DeploymentPlan plan = plan_deployment(d, ptrs(one), {}, kNow);
  REQUIRE(plan.update.size() == 1);
  CHECK(plan.update[0]["spec"]["replicas"] == 8);
  CHECK(plan.update[0]["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] ==
        "8");
  CHECK(plan.update[0]["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "10");
  CHECK(plan.events[0].message ==
        "Scaled up replica set " + std::string(one[0]["metadata"]["name"]) + " to 8 from 4");

  // Mid-rollout from 4 (max 5) to 8 (max 10): old 3 → 6, new 2 → 4.
  Json mid = make_deployment(8, "nginx:2");
  Json base = make_deployment(4, "nginx:2");
  std::vector<Json> two = {make_set(base, "nginx:1", 1, 3, 3),
                           make_set(base, "nginx:2", 2, 2, 0, 60)};
  plan = plan_deployment(mid, ptrs(two), {}, kNow);
  std::map<std::string, int> sizes;
  for (const auto& s : plan.update)
    sizes[s["metadata"]["annotations"]["deployment.kubernetes.io/revision"]] =
        s["spec"]["replicas"];
  CHECK(sizes == std::map<std::string, int>{{"1", 6}, {"2", 4}});
}

TEST_CASE("Recreate empties the old sets before the new one starts", "[simulator][deployment]") {
  Json d = make_deployment(2, "worker:2");
  d["spec"]["strategy"] = {{"type", "Recreate"}};
  Json old_set = make_set(d, "worker:1", 1, 2, 2);
  std::vector<Json> sets = {old_set};
  DeploymentPlan plan = plan_deployment(d, ptrs(sets), {}, kNow);
  CHECK_FALSE(plan.create);
  REQUIRE(plan.update.size() == 1);
  CHECK(plan.update[0]["spec"]["replicas"] == 0);

  // Scaled to 0 but a pod still terminates: wait.
  old_set["spec"]["replicas"] = 0;
  old_set["status"] = {{"replicas", 0}};
  sets = {old_set};
  Json pod = {
      {"metadata",
       {{"name", "p"},
        {"deletionTimestamp", "2026-01-01T00:00:00Z"},
        {"ownerReferences", {{{"kind", "ReplicaSet"}, {"uid", "rs-1"}, {"controller", true}}}}}},
      {"status", {{"phase", "Running"}}}};
  plan = plan_deployment(d, ptrs(sets), {&pod}, kNow);
  CHECK_FALSE(plan.create);
  plan = plan_deployment(d, ptrs(sets), {}, kNow);
  REQUIRE(plan.create);
  CHECK((*plan.create)["spec"]["replicas"] == 2);
}

TEST_CASE("paused and stalled Deployments say so", "[simulator][deployment]") {
  Json d = make_deployment(2, "nginx:2");
  d["spec"]["paused"] = true;
  std::vector<Json> sets = {make_set(d, "nginx:1", 1, 2, 2)};
  DeploymentPlan plan = plan_deployment(d, ptrs(sets), {}, kNow);
  CHECK_FALSE(plan.create);  // no rollout while paused
  const Json* progressing = condition(plan.status, "Progressing");
  REQUIRE(progressing);
  CHECK((*progressing)["status"] == "Unknown");
  CHECK((*progressing)["reason"] == "DeploymentPaused");

  // No progress for longer than progressDeadlineSeconds.
  Json stuck = make_deployment(2, "nginx:2");
  std::vector<Json> rollout = {make_set(stuck, "nginx:1", 1, 1, 1),
                               make_set(stuck, "nginx:2", 2, 2, 0, 60)};
  rollout[1]["status"] = {{"replicas", 2}};
  stuck["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "2"}};
  stuck["status"] = {
      {"observedGeneration", 1},
      {"replicas", 3},
      {"updatedReplicas", 2},
      {"availableReplicas", 1},
      {"conditions",
       {{{"type", "Progressing"},
         {"status", "True"},
         {"reason", "ReplicaSetUpdated"},
         {"lastUpdateTime", respool::apimachinery::format_time(kNow - std::chrono::minutes(11))},
         {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}};
  plan = plan_deployment(stuck, ptrs(rollout), {}, kNow);
  progressing = condition(plan.status, "Progressing");
  REQUIRE(progressing);
  CHECK((*progressing)["status"] == "False");
  CHECK((*progressing)["reason"] == "ProgressDeadlineExceeded");
  CHECK((*progressing)["message"] == "ReplicaSet \"" + std::string(rollout[1]["metadata"]["name"]) +
                                         "\" has timed out progressing.");
  // Before the deadline: a look again when it passes.
  stuck["status"]["conditions"][0]["lastUpdateTime"] =
      respool::apimachinery::format_time(kNow - std::chrono::minutes(5));
  plan = plan_deployment(stuck, ptrs(rollout), {}, kNow);
  CHECK((*condition(plan.status, "Progressing"))["reason"] == "ReplicaSetUpdated");
  CHECK(plan.recheck == std::chrono::minutes(5) + std::chrono::seconds(1));
}

TEST_CASE("maxSurge and maxUnavailable resolve as ResolveFenceposts", "[simulator][deployment]") {
  Json d = make_deployment(10, "x");
  d["spec"]["strategy"]["rollingUpdate"] = {{"maxSurge", 0}, {"maxUnavailable", "1%"}};
  CHECK(deployment_fenceposts(d).surge == 0);
  CHECK(deployment_fenceposts(d).unavailable == 1);  // both 0: one may be unavailable
  d["spec"]["strategy"]["rollingUpdate"] = {{"maxSurge", "30%"}, {"maxUnavailable", "30%"}};
  CHECK(deployment_fenceposts(d).surge == 3);        // rounded up
  CHECK(deployment_fenceposts(d).unavailable == 3);  // rounded down
  d["spec"]["strategy"] = {{"type", "Recreate"}};
  CHECK(deployment_fenceposts(d).surge == 0);
  CHECK(deployment_fenceposts(d).unavailable == 0);
}

TEST_CASE("a ReplicaSet deletes the least useful pods first", "[simulator][replicaset]") {
  auto pod = [](const std::string& name, const std::string& node, const std::string& phase,
                bool ready, int age_minutes) {
    Json p = {{"metadata",
               {{"name", name},
                {"uid", name},
                {"creationTimestamp",
                 respool::apimachinery::format_time(kNow - std::chrono::minutes(age_minutes))}}},
              {"spec", {{"nodeName", node}}},
              {"status", {{"phase", phase}}}};
    if (ready)
      p["status"]["conditions"] = {
          {{"type", "Ready"},
           {"status", "True"},
           {"lastTransitionTime",
            respool::apimachinery::format_time(kNow - std::chrono::minutes(age_minutes))}}};
    return p;
  };
  std::vector<Json> pods = {
      pod("old-ready", "n1", "Running", true, 600), pod("young-ready", "n2", "Running", true, 1),
      pod("unready", "n3", "Running", false, 300), pod("pending", "n4", "Pending", false, 300),
      pod("unscheduled", "", "Pending", false, 300)};
  std::vector<std::string> order;
  for (const Json* p : deletion_order(ptrs(pods), kNow))
    order.push_back((*p)["metadata"]["name"]);
  CHECK(order ==
        std::vector<std::string>{"unscheduled", "pending", "unready", "young-ready", "old-ready"});
  Json set = {
      {"metadata", {{"name", "rs"}, {"generation", 2}}},
      {"spec", {{"replicas", 3}, {"template", {{"metadata", {{"labels", {{"a", "b"}}}}}}}}}};
  ReplicaSetPlan plan = plan_replicaset(set, ptrs(pods), kNow);
  CHECK(plan.create == 0);
  CHECK(plan.remove == std::vector<std::string>{"unscheduled", "pending"});
  set["spec"]["replicas"] = 7;
  CHECK(plan_replicaset(set, ptrs(pods), kNow).create == 2);

  // Status: what is active, labelled as the template, ready, available.
  pods[0]["metadata"]["labels"] = {{"a", "b"}};
  pods.push_back(pod("going", "n1", "Running", true, 5));
  pods.back()["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  set["spec"]["minReadySeconds"] = 120;  // young-ready (1 minute) is not available yet
  Json status = replicaset_status(set, ptrs(pods), "", 0, kNow);
  CHECK(status == Json({{"replicas", 5},
                        {"fullyLabeledReplicas", 1},
                        {"readyReplicas", 2},
                        {"availableReplicas", 1},
                        {"observedGeneration", 2}}));
  CHECK(plan_replicaset(set, ptrs(pods), kNow).recheck == std::chrono::minutes(1));
  status = replicaset_status(set, ptrs(pods), "pods \"x\" is forbidden", -2, kNow);
  REQUIRE(status.contains("conditions"));
  CHECK(status["conditions"][0]["type"] == "ReplicaFailure");
  CHECK(status["conditions"][0]["reason"] == "FailedCreate");
  set["status"] = status;
  CHECK_FALSE(replicaset_status(set, ptrs(pods), "", 0, kNow).contains("conditions"));
}

TEST_CASE("a ReplicaSet's pods come from its template", "[simulator][replicaset]") {
  Json set = Json::parse(R"({
    "metadata": {"name": "web-abc", "namespace": "ns", "uid": "u"},
    "spec": {"template": {"metadata": {"labels": {"app": "web"}, "annotations": {"x": "y"}},
                          "spec": {"containers": [{"name": "c", "image": "i"}]}}}})");
  Json pod = replica_pod(set, "apps/v1", "ReplicaSet");
  CHECK(pod["metadata"]["generateName"] == "web-abc-");
  CHECK(pod["metadata"]["namespace"] == "ns");
  CHECK(pod["metadata"]["labels"] == Json({{"app", "web"}}));
  CHECK(pod["metadata"]["annotations"] == Json({{"x", "y"}}));
  CHECK(pod["metadata"]["ownerReferences"][0] == Json({{"apiVersion", "apps/v1"},
                                                       {"kind", "ReplicaSet"},
                                                       {"name", "web-abc"},
                                                       {"uid", "u"},
                                                       {"controller", true},
                                                       {"blockOwnerDeletion", true}}));
  CHECK(pod["spec"]["containers"][0]["image"] == "i");
}

TEST_CASE("templates compare as typed objects, ignoring the hash label",
          "[simulator][deployment]") {
  Json a = {{"metadata", {{"labels", {{"app", "x"}, {"pod-template-hash", "1"}}}}},
            {"spec", {{"containers", {{{"name", "c"}, {"resources", Json::object()}}}}}}};
  Json b = {{"metadata", {{"labels", {{"app", "x"}}}, {"creationTimestamp", nullptr}}},
            {"spec", {{"containers", {{{"name", "c"}}}}}}};
  CHECK(equal_ignore_hash(a, b));
  b["spec"]["containers"][0]["image"] = "other";
  CHECK_FALSE(equal_ignore_hash(a, b));
}
