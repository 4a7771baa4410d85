// The simulator's Job controller over real HTTP, as training jobs use it: Indexed workers,
// suspend and resume (with the scheduling fields editable in between), backoffLimit.
#include <catch2/catch.hpp>

#include <set>

#include "sandbox/simulator/fit.hpp"
#include "test/simulator/sandbox_fixture.hpp"

using namespace respool;
using namespace respool::sandbox::test;
using respool::sandbox::sim::annotation;
using respool::sandbox::sim::condition_status;
using respool::sandbox::sim::find_condition;
using respool::sandbox::sim::label;
using respool::sandbox::sim::string_at;

namespace {

const char* kFourNodes = R"(
nodes:
- flavor: gpu-8x-a100
  count: 4
  namePrefix: n
  capacity: {nvidia.com/gpu: "8"}
)";

Json training_job(const std::string& name, int workers) {
  Json job = Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "", "namespace": "default"},
    "spec": {"completionMode": "Indexed", "backoffLimit": 3, "template": {
      "metadata": {"annotations": {"sandbox.respool.io/log-interval": "1"}},
      "spec": {"restartPolicy": "OnFailure",
               "containers": [{"name": "worker", "image": "trainer:1"}]}}}})");
  job["metadata"]["name"] = name;
  job["spec"]["completions"] = workers;
  job["spec"]["parallelism"] = workers;
  return job;
}

// The Job's pods that are not being deleted.
std::vector<Json> live_pods(Cluster& cluster, const std::string& job) {
  std::vector<Json> out;
  for (const auto& pod : cluster.items(kube::resources::pods, "default", "job-name=" + job))
    if (!pod["metadata"].contains("deletionTimestamp")) out.push_back(pod);
  return out;
}

bool all_running(Cluster& cluster, const std::string& job, std::size_t n) {
  auto pods = live_pods(cluster, job);
  if (pods.size() != n) return false;
  for (const auto& p : pods)
    if (phase(p) != "Running") return false;
  return true;
}

}  // namespace

TEST_CASE("Indexed workers run, suspend without failures and resume with new scheduling fields",
          "[sandbox][jobs]") {
  Cluster cluster(kFourNodes);
  auto job = [&] { return cluster.get(kube::resources::jobs, "default", "train"); };
  cluster.create(kube::resources::jobs, "default", training_job("train", 4));
  REQUIRE(eventually([&] { return all_running(cluster, "train", 4); }, std::chrono::seconds(30)));
  std::set<std::string> indexes;
  for (const auto& p : live_pods(cluster, "train")) {
    const std::string ix = annotation(p, "batch.kubernetes.io/job-completion-index").value_or("");
    indexes.insert(ix);
    CHECK(label(p, "batch.kubernetes.io/job-completion-index") == ix);
    CHECK(string_at(p, {"metadata", "name"}).starts_with("train-" + ix + "-"));
    CHECK(string_at(p, {"spec", "hostname"}) == "train-" + ix);
    CHECK(p["metadata"]["finalizers"] == Json::array({"batch.kubernetes.io/job-tracking"}));
  }
  CHECK(indexes == std::set<std::string>{"0", "1", "2", "3"});
  REQUIRE(eventually([&] { return job()["status"].value("ready", 0) == 4; }));
  CHECK(job()["status"]["active"] == 4);
  CHECK(job()["status"].contains("startTime"));

  // The template is immutable while the Job runs.
  auto edit = [&] {
    return cluster.client().patch(
        kube::resources::jobs, "default", "train", kube::PatchType::Merge,
        {{"spec", {{"template", {{"spec", {{"nodeSelector", {{"zone", "b"}}}}}}}}}});
  };
  auto refused = edit();
  REQUIRE_FALSE(refused);
  CHECK(refused.error().is(kube::Error::Kind::Invalid));
  CHECK(refused.error().describe().find("spec.template") != std::string::npos);

  // Suspend: the workers go, nothing counts as failed; Suspended True.
  REQUIRE(cluster.client().patch(kube::resources::jobs, "default", "train", kube::PatchType::Merge,
                                 {{"spec", {{"suspend", true}}}}));
  REQUIRE(eventually(
      [&] {
        Json j = job();
        return cluster.items(kube::resources::pods, "default", "job-name=train").empty() &&
               !j["status"].contains("active") && j["status"].value("terminating", -1) == 0;
      },
      std::chrono::seconds(30)));
  Json suspended = job();
  CHECK_FALSE(suspended["status"].contains("failed"));
  CHECK(suspended["status"]["terminating"] == 0);
  REQUIRE(find_condition(suspended, "Suspended"));
  CHECK(find_condition(suspended, "Suspended")->value("status", "") == "True");
  CHECK(find_condition(suspended, "Suspended")->value("reason", "") == "JobSuspended");
  REQUIRE(suspended["status"].contains("startTime"));  // kept until a client clears it
  REQUIRE_FALSE(edit());                               // started once: still immutable

  // Clearing startTime through /status makes the scheduling fields editable.
  REQUIRE(eventually([&] {
    Json fresh = job();
    fresh["status"].erase("startTime");
    return cluster.client().update_status(kube::resources::jobs, "default", fresh).has_value();
  }));
  CHECK_FALSE(job()["status"].contains("startTime"));
  auto edited = edit();
  REQUIRE(edited);
  // Anything else in the template stays immutable.
  auto image =
      cluster.client().patch(kube::resources::jobs, "default", "train", kube::PatchType::Json,
                             Json::array({{{"op", "replace"},
                                           {"path", "/spec/template/spec/containers/0/image"},
                                           {"value", "trainer:2"}}}));
  CHECK_FALSE(image);

  // Resume: four new workers with the new nodeSelector (no node has zone=b: they wait), a fresh
  // startTime, Suspended False.
  REQUIRE(cluster.client().patch(kube::resources::jobs, "default", "train", kube::PatchType::Merge,
                                 {{"spec", {{"suspend", false}}}}));
  REQUIRE(eventually([&] { return live_pods(cluster, "train").size() == 4; },
                     std::chrono::seconds(30)));
  for (const auto& p : live_pods(cluster, "train"))
    CHECK(p["spec"]["nodeSelector"]["zone"] == "b");
  Json resumed = job();
  CHECK(resumed["status"].contains("startTime"));
  CHECK(find_condition(resumed, "Suspended")->value("status", "") == "False");
  CHECK(find_condition(resumed, "Suspended")->value("reason", "") == "JobResumed");
  CHECK_FALSE(resumed["status"].contains("failed"));
}

TEST_CASE("Indexed Jobs complete with every index; failing ones stop at backoffLimit",
          "[sandbox][jobs]") {
  Cluster cluster(kFourNodes);
  Json quick = training_job("quick", 3);
  quick["spec"]["template"]["metadata"]["annotations"] = {{"sandbox.respool.io/run-seconds", "5"}};
  cluster.create(kube::resources::jobs, "default", quick);
  Json broken = training_job("broken", 2);
  broken["spec"]["backoffLimit"] = 1;
  broken["spec"]["template"]["spec"]["restartPolicy"] = "Never";
  broken["spec"]["template"]["metadata"]["annotations"] = {{"sandbox.respool.io/run-seconds", "5"},
                                                           {"sandbox.respool.io/exit-code", "3"}};
  cluster.create(kube::resources::jobs, "default", broken);
  auto get_job = [&](const std::string& name) {
    return cluster.get(kube::resources::jobs, "default", name);
  };

  REQUIRE(eventually(
      [&] { return condition_status(get_job("quick"), "Complete") == kube::ConditionStatus::True; },
      std::chrono::seconds(60)));
  Json done = get_job("quick");
  CHECK(done["status"]["completedIndexes"] == "0-2");
  CHECK(done["status"]["succeeded"] == 3);
  CHECK(condition_status(done, "SuccessCriteriaMet") == kube::ConditionStatus::True);
  CHECK(done["status"].contains("completionTime"));

  REQUIRE(eventually(
      [&] { return condition_status(get_job("broken"), "Failed") == kube::ConditionStatus::True; },
      std::chrono::seconds(60)));
  Json failed = get_job("broken");
  // Both workers failed; a replacement started in between (when the first failure was counted
  // alone) is deleted when the Job fails and counts as failed too, as in a cluster.
  CHECK(failed["status"]["failed"] >= 2);
  CHECK(find_condition(failed, "Failed")->value("reason", "") == "BackoffLimitExceeded");
  CHECK(condition_status(failed, "FailureTarget") == kube::ConditionStatus::True);
  CHECK_FALSE(failed["status"].contains("completedIndexes"));
  for (const auto& p : cluster.items(kube::resources::pods, "default", "job-name=broken"))
    CHECK(p["metadata"].value("finalizers", Json::array()).empty());
}
