#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/daemonset_plan.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/node_set.hpp"
#include "sandbox/simulator/template_hash.hpp"

using namespace respool::sandbox;
using namespace respool::sandbox::sim;
using Json = nlohmann::json;

namespace {

const auto kNow = std::chrono::system_clock::time_point{std::chrono::seconds{1'767'225'600}};

Json make_node(const std::string& name, Json labels = Json::object()) {
  NodeInventory inventory;
  NodeSetSpec set;
  set.flavor = "f";
  Json node = node_objects(inventory, set, kNow).at(0);
  node["metadata"]["name"] = name;
  for (auto it = labels.begin(); it != labels.end(); ++it)
    node["metadata"]["labels"][it.key()] = it.value();
  return node;
}

Json make_ds(Json strategy = Json::object()) {
  Json ds = Json::parse(R"({
    "metadata": {"name": "agent", "namespace": "kube-system", "uid": "ds-uid", "generation": 1},
    "spec": {
      "selector": {"matchLabels": {"app": "agent"}},
      "template": {
        "metadata": {"labels": {"app": "agent"}},
        "spec": {"containers": [{"name": "a", "image": "agent:1"}]}}}})");
  if (!strategy.empty()) ds["spec"]["updateStrategy"] = strategy;
  return ds;
}

// A pod of `ds` on `node`, as the API server would hold it once the kubelet ran it.
Json running_pod(const Json& ds, const std::string& node, const std::string& name,
                 bool ready = true, int age_seconds = 60) {
  Json pod = daemon_pod(ds, node, template_hash(ds["spec"]["template"]));
  pod["metadata"].erase("generateName");
  pod["metadata"]["name"] = name;
  pod["metadata"]["uid"] = name + "-uid";
  pod["metadata"]["creationTimestamp"] =
      respool::apimachinery::format_time(kNow - std::chrono::seconds(age_seconds));
  Json ready_condition = {
      {"type", "Ready"},
      {"status", ready ? "True" : "False"},
      {"lastTransitionTime", respool::apimachinery::format_time(kNow - std::chrono::seconds(30))}};
  pod["status"] = {{"phase", "Running"}, {"conditions", Json::array({ready_condition})}};
  return pod;
}

std::vector<const Json*> ptrs(const std::vector<Json>& v) {
  std::vector<const Json*> out;
  for (const auto& j : v)
    out.push_back(&j);
  return out;
}

}  // namespace

TEST_CASE("daemon pods carry the automatic tolerations, owner and revision labels", "[simulator]") {
  Json ds = make_ds();
  ds["spec"]["template"]["spec"]["hostNetwork"] = true;
  Json pod = daemon_pod(ds, "n1", "abc");
  CHECK(pod["spec"]["nodeName"] == "n1");
  CHECK(label(pod, kControllerRevisionHash) == "abc");
  CHECK(label(pod, kPodTemplateGeneration) == "1");
  CHECK(label(pod, "app") == "agent");
  CHECK(pod["metadata"]["generateName"] == "agent-");
  CHECK(pod["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet");
  CHECK(pod["metadata"]["ownerReferences"][0]["controller"] == true);
  const Json& tolerations = pod["spec"]["tolerations"];
  for (auto [key, effect] : {std::pair{kTaintNotReady, "NoExecute"},
                             {kTaintUnreachable, "NoExecute"},
                             {kTaintDiskPressure, "NoSchedule"},
                             {kTaintMemoryPressure, "NoSchedule"},
                             {kTaintPidPressure, "NoSchedule"},
                             {kTaintUnschedulable, "NoSchedule"},
                             {kTaintNetworkUnavailable, "NoSchedule"}}) {
    CHECK(tolerated(tolerations, Taint{key, "", effect}));
  }
  CHECK_FALSE(tolerated(tolerations, Taint{kTaintNotReady, "", "NoSchedule"}));
}

TEST_CASE("a node should run a daemon pod when it matches and its taints are tolerated",
          "[simulator]") {
  Json ds = make_ds();
  ds["spec"]["template"]["spec"]["nodeSelector"] = {{"gpu", "true"}};
  Json spec = daemon_pod_spec(ds);
  Json node = make_node("n1", {{"gpu", "true"}});
  CHECK(node_should_run(spec, node).should_run);
  CHECK_FALSE(node_should_run(spec, make_node("n2")).should_continue);
  node["spec"]["taints"] = Json::array({{{"key", "dedicated"}, {"effect", "NoSchedule"}}});
  auto verdict = node_should_run(spec, node);
  CHECK_FALSE(verdict.should_run);
  CHECK(verdict.should_continue);  // NoSchedule does not evict a running daemon pod
  node["spec"]["taints"][0]["effect"] = "NoExecute";
  CHECK_FALSE(node_should_run(spec, node).should_continue);
  // An unschedulable (cordoned) node still runs daemon pods.
  Json cordoned = make_node("n3", {{"gpu", "true"}});
  cordoned["spec"]["taints"] =
      Json::array({{{"key", kTaintUnschedulable}, {"effect", "NoSchedule"}}});
  CHECK(node_should_run(spec, cordoned).should_run);
}

TEST_CASE("manage creates missing pods, deletes misplaced and extra ones", "[simulator]") {
  Json ds = make_ds();
  ds["spec"]["template"]["spec"]["nodeSelector"] = {{"gpu", "true"}};
  std::vector<Json> nodes = {make_node("n1", {{"gpu", "true"}}), make_node("n2", {{"gpu", "true"}}),
                             make_node("n3")};
  std::vector<Json> pods = {running_pod(ds, "n2", "p-old", true, 120),
                            running_pod(ds, "n2", "p-new", true, 60),
                            running_pod(ds, "n3", "p-stray")};
  auto plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.create_on == std::vector<std::string>{"n1"});
  std::sort(plan.remove.begin(), plan.remove.end());
  CHECK(plan.remove == std::vector<std::string>{"p-new", "p-stray"});  // the oldest stays
  CHECK(plan.status["desiredNumberScheduled"] == 2);
  CHECK(plan.status["currentNumberScheduled"] == 1);
  CHECK(plan.status["numberMisscheduled"] == 1);
  CHECK(plan.status["numberReady"] == 1);
  CHECK(plan.status["numberAvailable"] == 1);
  CHECK(plan.status["numberUnavailable"] == 1);
  CHECK(plan.status["updatedNumberScheduled"] == 1);
  CHECK(plan.status["observedGeneration"] == 1);
}

TEST_CASE("a terminating pod holds its node until it is gone; ended pods are replaced",
          "[simulator]") {
  Json ds = make_ds();
  std::vector<Json> nodes = {make_node("n1"), make_node("n2")};
  std::vector<Json> pods = {running_pod(ds, "n1", "p1"), running_pod(ds, "n2", "p2")};
  pods[0]["metadata"]["deletionTimestamp"] = respool::apimachinery::format_time(kNow);
  pods[1]["status"]["phase"] = "Failed";
  auto plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.create_on.empty());
  CHECK(plan.remove == std::vector<std::string>{"p2"});
}

TEST_CASE("OnDelete keeps old pods; replacements use the new template", "[simulator]") {
  Json ds = make_ds({{"type", "OnDelete"}});
  std::vector<Json> nodes = {make_node("n1"), make_node("n2")};
  std::vector<Json> pods = {running_pod(ds, "n1", "p1"), running_pod(ds, "n2", "p2")};
  ds["spec"]["template"]["spec"]["containers"][0]["image"] = "agent:2";
  ds["metadata"]["generation"] = 2;
  auto plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.remove.empty());
  CHECK(plan.create_on.empty());
  CHECK(plan.status["updatedNumberScheduled"].is_null());  // 0: omitted
  // p1 deleted by hand: n1 gets a pod of the new template.
  pods.erase(pods.begin());
  plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.create_on == std::vector<std::string>{"n1"});
  Json fresh = daemon_pod(ds, "n1", template_hash(ds["spec"]["template"]));
  CHECK(fresh["spec"]["containers"][0]["image"] == "agent:2");
  CHECK(label(fresh, kPodTemplateGeneration) == "2");
}

TEST_CASE("RollingUpdate deletes old pods within maxUnavailable", "[simulator]") {
  Json ds = make_ds({{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", 2}}}});
  std::vector<Json> nodes;
  std::vector<Json> pods;
  for (int i = 1; i <= 5; ++i) {
    nodes.push_back(make_node("n" + std::to_string(i)));
    pods.push_back(running_pod(ds, "n" + std::to_string(i), "p" + std::to_string(i)));
  }
  ds["spec"]["template"]["spec"]["containers"][0]["image"] = "agent:2";
  ds["metadata"]["generation"] = 2;
  auto plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.remove == std::vector<std::string>{"p1", "p2"});
  CHECK(plan.status["updatedNumberScheduled"].is_null());

  // p1 replaced and not ready yet, p2 terminating: no more room.
  pods[0] = running_pod(ds, "n1", "q1", false);
  pods[1]["metadata"]["deletionTimestamp"] = respool::apimachinery::format_time(kNow);
  plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.remove.empty());

  // q1 ready, p2 gone (n2 empty: the manage pass creates there): one more old pod may go.
  pods[0] = running_pod(ds, "n1", "q1", true);
  pods.erase(pods.begin() + 1);
  plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.create_on == std::vector<std::string>{"n2"});
  CHECK(plan.remove == std::vector<std::string>{"p3"});

  // An old pod that is not available is replaced whatever the budget.
  pods[2]["status"]["conditions"][0]["status"] = "False";  // p4
  plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(std::find(plan.remove.begin(), plan.remove.end(), "p4") != plan.remove.end());
}

TEST_CASE("maxUnavailable: int, percentage rounded up, default 1", "[simulator]") {
  auto with = [](Json v) {
    return make_ds({{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxUnavailable", v}}}});
  };
  CHECK(max_unavailable(make_ds(), 10) == 1);
  CHECK(max_unavailable(with(3), 10) == 3);
  CHECK(max_unavailable(with("25%"), 10) == 3);
  CHECK(max_unavailable(with("10%"), 5) == 1);
  CHECK(max_unavailable(with(0), 10) == 1);
}

TEST_CASE("minReadySeconds delays availability", "[simulator]") {
  Json ds = make_ds();
  ds["spec"]["minReadySeconds"] = 60;
  std::vector<Json> nodes = {make_node("n1")};
  std::vector<Json> pods = {running_pod(ds, "n1", "p1")};  // ready for 30 s
  auto plan = plan_daemonset(ds, ptrs(nodes), ptrs(pods), kNow);
  CHECK(plan.status["numberReady"] == 1);
  CHECK(plan.status["numberAvailable"].is_null());
  CHECK(plan.recheck == std::chrono::seconds(30));
  CHECK(pod_available(pods[0], 60, kNow + std::chrono::seconds(30)));
}
