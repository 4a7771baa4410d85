#include <catch2/catch.hpp>

#include "apimachinery/time.hpp"
#include "sandbox/simulator/fit.hpp"
#include "sandbox/simulator/job_plan.hpp"
#include "sandbox/simulator/keys.hpp"

using namespace respool::sandbox::sim;
using Json = nlohmann::json;

namespace {

const auto kNow = std::chrono::system_clock::time_point{std::chrono::seconds{1'767'225'600}};

Json make_job(Json spec_extra = Json::object()) {
  Json job = Json::parse(R"({
    "metadata": {"name": "reset-n1", "namespace": "respool-system", "uid": "job-uid"},
    "spec": {"template": {
      "metadata": {"labels": {"app": "reset"}},
      "spec": {"nodeName": "n1", "restartPolicy": "Never",
               "containers": [{"name": "reset", "image": "reset:1"}]}}}})");
  for (auto it = spec_extra.begin(); it != spec_extra.end(); ++it)
    job["spec"][it.key()] = it.value();
  return job;
}

Json job_pod_named(const Json& job, const std::string& name, const std::string& phase) {
  Json pod = job_pod(job);
  pod["metadata"]["name"] = name;
  pod["metadata"]["uid"] = name + "-uid";
  pod["status"]["phase"] = phase;
  if (phase == "Failed" || phase == "Succeeded") {
    pod["status"]["containerStatuses"] = {
        {{"name", "reset"},
         {"state", {{"terminated", {{"finishedAt", respool::apimachinery::format_time(kNow)}}}}}}};
  }
  return pod;
}

std::vector<const Json*> ptrs(const std::vector<Json>& v) {
  std::vector<const Json*> out;
  for (const auto& j : v)
    out.push_back(&j);
  return out;
}

// What the API server holds after the controller carried the plan out (finalizers released).
Json apply(Json job, std::vector<Json>& pods, const JobPlan& plan) {
  job["status"] = plan.status;
  for (auto& p : pods) {
    for (const auto& n : plan.release)
      if (p["metadata"]["name"] == n) p["metadata"].erase("finalizers");
  }
  return job;
}

}  // namespace

TEST_CASE("a job pod is pinned, owned, labelled and tracked", "[simulator]") {
  Json pod = job_pod(make_job());
  CHECK(pod["spec"]["nodeName"] == "n1");
  CHECK(pod["metadata"]["generateName"] == "reset-n1-");
  CHECK(pod["metadata"]["ownerReferences"][0]["kind"] == "Job");
  CHECK(pod["metadata"]["ownerReferences"][0]["uid"] == "job-uid");
  CHECK(label(pod, "batch.kubernetes.io/job-name") == "reset-n1");
  CHECK(label(pod, "app") == "reset");
  CHECK(pod["metadata"]["finalizers"] == Json::array({kJobTrackingFinalizer}));
}

TEST_CASE("a job runs one pod and completes when it succeeds", "[simulator]") {
  Json job = make_job();
  std::vector<Json> pods;
  auto plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.create == 1);
  CHECK(plan.status.contains("startTime"));
  job = apply(job, pods, plan);

  pods.push_back(job_pod_named(job, "p1", "Running"));
  plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.create == 0);
  CHECK(plan.status["active"] == 1);
  job = apply(job, pods, plan);

  pods[0]["status"]["phase"] = "Succeeded";
  plan = plan_job(job, ptrs(pods), kNow);
  // First recorded as uncounted, its finalizer released after the status write.
  CHECK(plan.status["uncountedTerminatedPods"]["succeeded"] == Json::array({"p1-uid"}));
  CHECK(plan.release == std::vector<std::string>{"p1"});
  CHECK_FALSE(job_finished(Json{{"status", plan.status}}));
  job = apply(job, pods, plan);

  plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.status["succeeded"] == 1);
  CHECK(plan.status["uncountedTerminatedPods"] == Json::object());
  CHECK(plan.status.contains("completionTime"));
  job = apply(job, pods, plan);
  CHECK(job_finished(job));
  CHECK(condition_status(job, "Complete") == respool::kube::ConditionStatus::True);
  CHECK(condition_status(job, "SuccessCriteriaMet") == respool::kube::ConditionStatus::True);
  CHECK(find_condition(job, "Complete")->value("reason", "") == "CompletionsReached");
  CHECK(job["status"]["active"].is_null());

  // Finished: nothing more happens, and a pod is never counted twice.
  plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.create == 0);
  CHECK(plan.status["succeeded"] == 1);
}

TEST_CASE("failed pods are retried after a backoff up to backoffLimit", "[simulator]") {
  Json job = make_job({{"backoffLimit", 1}});
  std::vector<Json> pods = {job_pod_named(job, "p1", "Failed")};
  auto plan = plan_job(job, ptrs(pods), kNow);
  job = apply(job, pods, plan);
  plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.status["failed"] == 1);
  CHECK(plan.create == 0);
  CHECK(plan.recheck == std::chrono::seconds(10));
  job = apply(job, pods, plan);
  plan = plan_job(job, ptrs(pods), kNow + std::chrono::seconds(10));
  CHECK(plan.create == 1);

  pods.push_back(job_pod_named(job, "p2", "Failed"));
  plan = plan_job(job, ptrs(pods), kNow);
  job = apply(job, pods, plan);
  plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.status["failed"] == 2);
  CHECK(plan.create == 0);
  job = apply(job, pods, plan);
  CHECK(condition_status(job, "Failed") == respool::kube::ConditionStatus::True);
  CHECK(find_condition(job, "Failed")->value("reason", "") == "BackoffLimitExceeded");
}

TEST_CASE("a pod deleted before it succeeded counts as failed", "[simulator]") {
  Json job = make_job();
  std::vector<Json> pods = {job_pod_named(job, "p1", "Running")};
  pods[0]["metadata"]["deletionTimestamp"] = respool::apimachinery::format_time(kNow);
  auto plan = plan_job(job, ptrs(pods), kNow);
  CHECK(plan.status["uncountedTerminatedPods"]["failed"] == Json::array({"p1-uid"}));
  CHECK(plan.status["terminating"] == 1);
  CHECK(plan.create == 0);  // the replacement waits for the count (and the backoff)
}

TEST_CASE("parallelism and completions bound the running pods", "[simulator]") {
  Json job = make_job({{"completions", 3}, {"parallelism", 2}});
  std::vector<Json> pods;
  CHECK(plan_job(job, ptrs(pods), kNow).create == 2);
  Json done = job;
  done["status"] = {{"succeeded", 2}};
  CHECK(plan_job(done, ptrs(pods), kNow).create == 1);
  Json suspended = make_job({{"suspend", true}});
  pods = {job_pod_named(suspended, "p1", "Running")};
  auto plan = plan_job(suspended, ptrs(pods), kNow);
  CHECK(plan.create == 0);
  // Released before the delete: a suspended pod is not a failure.
  CHECK(plan.release_and_remove == std::vector<std::string>{"p1"});
  CHECK(plan.remove.empty());
  CHECK_FALSE(plan.status.contains("startTime"));
}
