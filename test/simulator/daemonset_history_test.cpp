// The DaemonSet controller's ControllerRevisions, without a server.

#include <catch2/catch.hpp>

#include "sandbox/simulator/daemonset_history.hpp"
#include "sandbox/simulator/keys.hpp"
#include "sandbox/simulator/template_hash.hpp"

using namespace respool::sandbox::sim;
using Json = nlohmann::json;

namespace {

Json history_ds(const std::string& image) {
  Json ds = Json::parse(R"({
    "apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "agent", "namespace": "ops", "uid": "ds-uid",
                 "annotations": {"kubernetes.io/change-cause": "agent update"}},
    "spec": {"selector": {"matchLabels": {"app": "agent"}},
             "template": {"metadata": {"labels": {"app": "agent"}},
                          "spec": {"containers": [{"name": "a", "image": ""}]}}}})");
  ds["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  return ds;
}

std::string hash_of(const Json& ds) {
  return template_hash(ds["spec"]["template"]);
}

Json daemon_pod_with(const std::string& hash) {
  return {{"metadata", {{"name", "agent-x"}, {"labels", {{kControllerRevisionHash, hash}}}}}};
}

}  // namespace

TEST_CASE("a DaemonSet's templates are kept as numbered ControllerRevisions",
          "[simulator][daemonset]") {
  const Json v1 = history_ds("agent:1");
  DaemonSetHistoryPlan first = plan_daemonset_history(v1, {}, {}, hash_of(v1));
  REQUIRE(first.create);
  const Json& r1 = *first.create;
  CHECK(r1["metadata"]["name"] == "agent-" + hash_of(v1));
  CHECK(r1["revision"] == 1);
  CHECK(r1["metadata"]["labels"][kControllerRevisionHash] == hash_of(v1));
  CHECK(r1["metadata"]["labels"]["app"] == "agent");
  CHECK(r1["metadata"]["annotations"]["kubernetes.io/change-cause"] == "agent update");
  CHECK(r1["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet");
  CHECK(r1["metadata"]["ownerReferences"][0]["controller"] == true);
  CHECK(r1["data"]["spec"]["template"]["$patch"] == "replace");
  CHECK(r1["data"]["spec"]["template"]["spec"]["containers"][0]["image"] == "agent:1");
  // Nothing more to do once it is there.
  DaemonSetHistoryPlan again = plan_daemonset_history(v1, {&r1}, {}, hash_of(v1));
  CHECK_FALSE(again.create);
  CHECK_FALSE(again.renumber);
  CHECK(again.remove.empty());

  // A new template: revision 2. Back to the first (kubectl rollout undo): revision 1 becomes 3.
  const Json v2 = history_ds("agent:2");
  DaemonSetHistoryPlan second = plan_daemonset_history(v2, {&r1}, {}, hash_of(v2));
  REQUIRE(second.create);
  CHECK((*second.create)["revision"] == 2);
  const Json r2 = *second.create;
  const Json pod_v2 = daemon_pod_with(hash_of(v2));
  DaemonSetHistoryPlan undo = plan_daemonset_history(v1, {&r2, &r1}, {&pod_v2}, hash_of(v1));
  CHECK_FALSE(undo.create);
  REQUIRE(undo.renumber);
  CHECK((*undo.renumber)["metadata"]["name"] == r1["metadata"]["name"]);
  CHECK((*undo.renumber)["revision"] == 3);
}

TEST_CASE("a DaemonSet keeps revisionHistoryLimit unused revisions", "[simulator][daemonset]") {
  Json ds = history_ds("agent:9");
  ds["spec"]["revisionHistoryLimit"] = 1;
  std::vector<Json> old;
  for (int i = 1; i <= 4; ++i) {
    const Json v = history_ds("agent:" + std::to_string(i));
    Json r = *plan_daemonset_history(v, {}, {}, hash_of(v)).create;
    r["revision"] = i;
    old.push_back(r);
  }
  Json current = *plan_daemonset_history(ds, {}, {}, hash_of(ds)).create;
  current["revision"] = 5;
  // A pod still runs revision 2: kept. Of 1 and 3, one more than the limit goes: 1. 4 stays.
  const Json pod = daemon_pod_with(old[1]["metadata"]["labels"][kControllerRevisionHash]);
  std::vector<const Json*> all = {&old[2], &old[0], &current, &old[1], &old[3]};
  DaemonSetHistoryPlan plan = plan_daemonset_history(ds, all, {&pod}, hash_of(ds));
  REQUIRE(plan.remove.size() == 2);
  CHECK(plan.remove[0] == old[0]["metadata"]["name"].get<std::string>());
  CHECK(plan.remove[1] == old[2]["metadata"]["name"].get<std::string>());
}
