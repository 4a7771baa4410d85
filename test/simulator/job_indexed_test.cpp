// The Job controller's plan for what training jobs use: Indexed completion, suspend and resume,
// podReplacementPolicy, OnFailure restarts against backoffLimit.
#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/job_indexes.hpp"
#include "sandbox/simulator/job_plan.hpp"
#include "sandbox/simulator/keys.hpp"

using namespace respool::sandbox::sim;
using Json = nlohmann::json;
using respool::kube::ConditionStatus;

namespace {

const auto kNow = std::chrono::system_clock::time_point{std::chrono::seconds{1'767'225'600}};

Json indexed_job(Json spec_extra = Json::object()) {
  Json job = Json::parse(R"({
    "metadata": {"name": "train", "namespace": "default", "uid": "job-uid"},
    "spec": {"completionMode": "Indexed", "completions": 4, "parallelism": 4,
             "backoffLimit": 6, "podReplacementPolicy": "TerminatingOrFailed",
             "template": {
      "metadata": {"annotations": {"sandbox.respool.io/log-interval": "1"}},
      "spec": {"restartPolicy": "OnFailure",
               "containers": [{"name": "worker", "image": "trainer:1"}]}}}})");
  for (auto it = spec_extra.begin(); it != spec_extra.end(); ++it)
    job["spec"][it.key()] = it.value();
  return job;
}

Json pod_for(const Json& job, int index, const std::string& phase) {
  Json pod = job_pod(job, index);
  const std::string name = "train-" + std::to_string(index) + "-x";
  pod["metadata"]["name"] = name;
  pod["metadata"]["uid"] = name + "-uid";
  pod["status"]["phase"] = phase;
  if (phase == "Running") pod["status"]["conditions"] = {{{"type", "Ready"}, {"status", "True"}}};
  return pod;
}

std::vector<const Json*> ptrs(const std::vector<Json>& v) {
  std::vector<const Json*> out;
  for (const auto& j : v)
    out.push_back(&j);
  return out;
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("completed indexes are written as ordered intervals", "[simulator]") {
  CHECK(format_indexes({}) == "");
  CHECK(format_indexes({1, 3, 4, 5, 7}) == "1,3-5,7");
  CHECK(parse_indexes("1,3-5,7", 10) == std::set<int>{1, 3, 4, 5, 7});
  CHECK(parse_indexes("0-3,x,9", 5) == std::set<int>{0, 1, 2, 3});
  CHECK(first_pending_indexes({0, 2}, 2, 4) == std::set<int>{1, 3});
}

TEST_CASE("an Indexed Job's pod carries its index, hostname and variable", "[simulator]") {
  Json pod = job_pod(indexed_job(), 3);
  CHECK(pod["metadata"]["generateName"] == "train-3-");
  CHECK(annotation(pod, kCompletionIndexKey) == "3");
  CHECK(label(pod, kCompletionIndexKey) == "3");
  CHECK(label(pod, "batch.kubernetes.io/job-name") == "train");
  CHECK(pod["spec"]["hostname"] == "train-3");
  CHECK(pod["metadata"]["finalizers"] == Json::array({kJobTrackingFinalizer}));
  const Json& env = pod["spec"]["containers"][0]["env"];
  REQUIRE(env.size() == 1);
  CHECK(env[0]["name"] == "JOB_COMPLETION_INDEX");
  CHECK(env[0]["valueFrom"]["fieldRef"]["fieldPath"] ==
        "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  // A worker (log-interval) runs until stopped: no default run time.
  CHECK_FALSE(annotation(pod, kRunSecondsAnnotation));
  const Json plain = Json::parse(R"({"metadata": {"name": "j"}, "spec": {"template": {}}})");
  CHECK(annotation(job_pod(plain), kRunSecondsAnnotation) == kJobPodRunSeconds);
}

TEST_CASE("an Indexed Job runs each index once and completes with all of them", "[simulator]") {
  Json job = indexed_job();
  std::vector<Json> pods;
  auto plan = plan_job(job, ptrs(pods), kNow);
  CHECK(sorted(plan.create_indexes) == std::vector<int>{0, 1, 2, 3});
  CHECK(plan.create == 0);
  CHECK(plan.status["active"] == 4);
  job["status"] = plan.status;

  for (int i : {0, 1, 2, 3})
    pods.push_back(pod_for(job, i, i == 2 ? "Succeeded" : "Running"));
  plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.status["completedIndexes"] == "2");
  CHECK(plan.status["succeeded"] == 1);
  CHECK(plan.status["active"] == 3);
  CHECK(plan.status["ready"] == 3);
  CHECK(plan.release == std::vector<std::string>{"train-2-x"});
  CHECK(plan.create_indexes.empty());
  job["status"] = plan.status;
  pods[2]["metadata"].erase("finalizers");

  // Index 1 fails: counted once, replaced (after the backoff) by a new pod of index 1.
  pods[1]["status"]["phase"] = "Failed";
  plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.status["uncountedTerminatedPods"]["failed"] == Json::array({"train-1-x-uid"}));
  job["status"] = plan.status;
  pods[1]["metadata"].erase("finalizers");
  plan = plan_job(job, ptrs(pods), kNow + std::chrono::seconds(11));
  CHECK(plan.status["failed"] == 1);
  CHECK(plan.create_indexes == std::vector<int>{1});

  // Everything succeeded: SuccessCriteriaMet and Complete, completedIndexes "0-3".
  for (int i : {0, 1, 3})
    pods[static_cast<std::size_t>(i)]["status"]["phase"] = "Succeeded";
  pods[1] = pod_for(job, 1, "Succeeded");
  job["status"] = plan.status;
  plan = plan_job(job, ptrs(pods), kNow + std::chrono::seconds(20));
  CHECK(plan.status["completedIndexes"] == "0-3");
  CHECK(plan.status["succeeded"] == 4);
  job["status"] = plan.status;
  CHECK(condition_status(job, "SuccessCriteriaMet") == ConditionStatus::True);
  CHECK(condition_status(job, "Complete") == ConditionStatus::True);
  CHECK(job_finished(job));
}

TEST_CASE("duplicate indexes are removed without counting them", "[simulator]") {
  Json job = indexed_job({{"completions", 2}, {"parallelism", 2}});
  std::vector<Json> pods = {pod_for(job, 0, "Running"), pod_for(job, 0, "Running")};
  pods[1]["metadata"]["name"] = "train-0-y";
  pods[1]["metadata"]["uid"] = "train-0-y-uid";
  auto plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.release_and_remove.size() == 1);
  CHECK(plan.create_indexes.empty());  // removals first, creations next round
}

TEST_CASE("suspend removes the workers uncounted; resume starts the time anew", "[simulator]") {
  Json job = indexed_job();
  std::vector<Json> pods;
  for (int i : {0, 1, 2, 3})
    pods.push_back(pod_for(job, i, "Running"));
  auto plan = plan_job(job, ptrs(pods), kNow);
  job["status"] = plan.status;
  const std::string started = job["status"]["startTime"];

  job["spec"]["suspend"] = true;
  plan = plan_job(job, ptrs(pods), kNow + std::chrono::seconds(60));
  CHECK(plan.release_and_remove.size() == 4);
  CHECK(plan.remove.empty());
  CHECK(plan.status["terminating"] == 4);
  CHECK_FALSE(plan.status.contains("active"));
  CHECK(plan.status["startTime"] == started);  // kept, as 1.32 keeps it
  job["status"] = plan.status;
  const Json* suspended = find_condition(job, "Suspended");
  REQUIRE(suspended);
  CHECK((*suspended)["status"] == "True");
  CHECK((*suspended)["reason"] == "JobSuspended");

  // The released pods go; nothing was counted as failed.
  for (auto& p : pods) {
    p["metadata"].erase("finalizers");
    p["metadata"]["deletionTimestamp"] = respool::apimachinery::format_time(kNow);
  }
  plan = plan_job(job, ptrs(pods), kNow + std::chrono::seconds(61));
  CHECK_FALSE(plan.status.contains("failed"));
  CHECK(plan.status["uncountedTerminatedPods"] == Json::object());
  job["status"] = plan.status;
  job["status"].erase("startTime");  // a client clears it through /status

  pods.clear();
  job["spec"]["suspend"] = false;
  plan = plan_job(job, ptrs(pods), kNow + std::chrono::seconds(120));
  CHECK(sorted(plan.create_indexes) == std::vector<int>{0, 1, 2, 3});
  CHECK(plan.status["startTime"] ==
        respool::apimachinery::format_time(kNow + std::chrono::seconds(120)));
  job["status"] = plan.status;
  CHECK(find_condition(job, "Suspended")->value("status", "") == "False");
  CHECK(find_condition(job, "Suspended")->value("reason", "") == "JobResumed");
}

TEST_CASE("a Job created suspended has no startTime until resumed", "[simulator]") {
  Json job = indexed_job({{"suspend", true}});
  auto plan = plan_job(job, {}, kNow);
  CHECK_FALSE(plan.status.contains("startTime"));
  CHECK(plan.create_indexes.empty());
  job["status"] = plan.status;
  job["spec"]["suspend"] = false;
  plan = plan_job(job, {}, kNow + std::chrono::seconds(5));
  CHECK(plan.status["startTime"] ==
        respool::apimachinery::format_time(kNow + std::chrono::seconds(5)));
}

TEST_CASE("podReplacementPolicy decides when a terminating pod is replaced", "[simulator]") {
  for (const std::string policy : {"TerminatingOrFailed", "Failed"}) {
    Json job =
        indexed_job({{"completions", 2}, {"parallelism", 2}, {"podReplacementPolicy", policy}});
    std::vector<Json> pods = {pod_for(job, 0, "Running"), pod_for(job, 1, "Running")};
    pods[1]["metadata"]["deletionTimestamp"] = respool::apimachinery::format_time(kNow);
    auto plan = plan_job(job, ptrs(pods), kNow);
    CHECK(plan.status["terminating"] == 1);
    if (policy == "TerminatingOrFailed") {
      // Counted as failed at once; replaced after the backoff.
      CHECK(plan.status["uncountedTerminatedPods"]["failed"] == Json::array({"train-1-x-uid"}));
    } else {
      CHECK_FALSE(plan.status["uncountedTerminatedPods"].contains("failed"));
      job["status"] = plan.status;
      plan = plan_job(job, ptrs(pods), kNow + std::chrono::minutes(5));
      CHECK(plan.create_indexes.empty());  // waits until it has failed
      pods[1]["status"]["phase"] = "Failed";
      plan = plan_job(job, ptrs(pods), kNow + std::chrono::minutes(5));
      CHECK(plan.status["uncountedTerminatedPods"]["failed"] == Json::array({"train-1-x-uid"}));
    }
  }
}

TEST_CASE("OnFailure container restarts reaching backoffLimit fail the Job", "[simulator]") {
  Json job = indexed_job({{"completions", 1}, {"parallelism", 1}, {"backoffLimit", 2}});
  std::vector<Json> pods = {pod_for(job, 0, "Running")};
  pods[0]["status"]["containerStatuses"] = {{{"name", "worker"}, {"restartCount", 1}}};
  auto plan = plan_job(job, ptrs(pods), kNow);
  job["status"] = plan.status;
  CHECK(condition_status(job, "FailureTarget") != ConditionStatus::True);
  pods[0]["status"]["containerStatuses"][0]["restartCount"] = 2;
  plan = plan_job(job, ptrs(pods), kNow);
  job["status"] = plan.status;
  CHECK(condition_status(job, "FailureTarget") == ConditionStatus::True);
  CHECK(find_condition(job, "FailureTarget")->value("reason", "") == "BackoffLimitExceeded");
  CHECK(plan.remove == std::vector<std::string>{"train-0-x"});
  CHECK(condition_status(job, "Failed") != ConditionStatus::True);  // a pod still terminates
  pods[0]["metadata"]["deletionTimestamp"] = respool::apimachinery::format_time(kNow);
  pods[0]["status"]["phase"] = "Failed";
  plan = plan_job(job, ptrs(pods), kNow);
  job["status"] = plan.status;
  pods[0]["metadata"].erase("finalizers");
  plan = plan_job(job, ptrs(pods), kNow);
  job["status"] = plan.status;
  CHECK(condition_status(job, "Failed") == ConditionStatus::True);
  CHECK(job["status"]["failed"] == 1);
}
