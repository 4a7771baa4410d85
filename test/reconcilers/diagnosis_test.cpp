// Automatic diagnosis of training jobs (issue 29; O1, O3, O9, O10) against the sandbox: a worker
// that fails with a failure the catalogue knows gets one report, the Job its risk level; a Job
// without fault tolerance is Unprotected and gets none; a restarted operator neither loses nor
// duplicates a report.

#include "reconcilers/policy/diagnosis_report.hpp"
#include "test/reconcilers/diagnosis_fixtures.hpp"

using namespace respool;
using namespace respool::test;
using namespace respool::test::training;

namespace {

// The running worker `index` of run 0 ends now with the sandbox's failure sample `sample`.
std::string fail_with(Harness& h, const std::string& job_name, int index,
                      const std::string& sample) {
  for (const auto& p : running_pods(h, job_name, "0")) {
    if (p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "") ==
        std::to_string(index)) {
      const std::string name = p["metadata"]["name"];
      annotate(h, kube::resources::pods, "default", name,
               {{"sandbox.respool.io/failure", sample}, {"sandbox.respool.io/run-seconds", "0"}});
      return name;
    }
  }
  FAIL("no running worker " << index << " of " << job_name);
  return "";
}

}  // namespace

TEST_CASE(
    "O3 O9 O10: a worker dies of a CUDA out-of-memory: one report, the job High; "
    "O1: a plain pool job is Unprotected and gets none",
    "[reconcilers][diagnosis][rule:O1][rule:O3][rule:O9][rule:O10]") {
  Harness h({.nodes_yaml = gpu_nodes(4)});
  gpu_pool(h, "train", 4);
  h.apply(training_job("llm", "train", 2, {{"fault-tolerance/job-retry-num", "2"}}, "Never"),
          kube::resources::jobs);
  h.apply(training_job("plain", "train", 1, {}, "Never"), kube::resources::jobs);
  REQUIRE(h.eventually([&] {
    return running_pods(h, "llm", "0").size() == 2 && running_pods(h, "plain", "0").size() == 1 &&
           risk(job(h, "llm")) == "NoRisk";
  }));
  REQUIRE(h.eventually([&] { return risk(job(h, "plain")) == "Unprotected"; }));

  const std::string pod = fail_with(h, "llm", 1, "cuda-oom");
  fail_with(h, "plain", 0, "cuda-oom");
  const std::string name = pod + "-code";
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, name)); }, 90s));
  const Json d = *diagnosis(h, name);
  CHECK(d["spec"] ==
        Json{{"job", "llm"}, {"type", "Automatic"}, {"description", "worker " + pod + " failed"}});
  CHECK(d["metadata"]["ownerReferences"][0]["name"] == "llm");
  CHECK(d["metadata"]["ownerReferences"][0]["uid"] == job(h, "llm")["metadata"]["uid"]);
  const Json& s = d["status"];
  CHECK(s["monitor"] == "CodeErrorDetection");
  CHECK(s["reason"] == "CodeError");
  CHECK(s["risk"] == "High");
  CHECK(s["category"] == "Code");
  CHECK(s["creator"] == "respool");
  CHECK(s["job"]["name"] == "llm");
  CHECK(s["job"]["pool"] == "train");
  CHECK(s["job"]["resourceType"] == "GPU");
  CHECK(s["job"]["workers"] == 2);
  CHECK(s["requests"].get<int>() >= 2);  // the pod and its log
  CHECK(s["logBytes"].get<int>() > 0);
  REQUIRE(s["results"].size() == 1);
  const Json& r = s["results"][0];
  CHECK(r["catalogEntry"] == "cuda-out-of-memory");
  CHECK(r["component"] == "PyTorch");
  CHECK(r["fault"].get<std::string>().starts_with("torch.OutOfMemoryError: CUDA out of memory."));
  CHECK(r["fault"].get<std::string>().ends_with("(/workspace/train.py:88, in <module>)"));
  CHECK_FALSE(r["solution"].get<std::string>().empty());
  CHECK(r["device"]["pod"] == pod);
  CHECK(r["device"]["worker"] == 1);
  CHECK(r["device"]["exitCode"] == 1);
  CHECK_FALSE(r["device"].value("node", "").empty());
  REQUIRE_FALSE(r["keyLines"].empty());
  CHECK(r["keyLines"].back()["text"].get<std::string>().find("CUDA out of memory") !=
        std::string::npos);
  CHECK(r["keyLines"].back()["pod"] == pod);

  // O3, O5: the job shows the entry's level; the Job's events point to the report.
  REQUIRE(h.eventually([&] { return risk(job(h, "llm")) == "High"; }));
  REQUIRE(h.eventually([&] { return diagnosed_events(h, "llm", name) == 1; }));
  // O1: the plain job's worker failed the same way: no report, still Unprotected.
  std::this_thread::sleep_for(2s);
  for (const auto& each : diagnoses(h))
    CHECK(each["spec"]["job"] == "llm");
  CHECK(diagnoses(h).size() == 1);
  CHECK(risk(job(h, "plain")) == "Unprotected");
}

TEST_CASE("O9: an operator restarted mid-diagnosis neither loses nor duplicates a report",
          "[reconcilers][diagnosis][rule:O9]") {
  Harness h({.nodes_yaml = gpu_nodes(3)});
  gpu_pool(h, "train", 3);
  h.apply(training_job("llm", "train", 2, {{"fault-tolerance/job-retry-num", "2"}}, "Never"),
          kube::resources::jobs);
  REQUIRE(h.eventually([&] { return running_pods(h, "llm", "0").size() == 2; }));
  std::string first, second;
  for (const auto& p : running_pods(h, "llm", "0")) {
    const std::string index =
        p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "");
    (index == "0" ? first : second) = p["metadata"]["name"];
  }
  // The operator that died after creating worker 0's report and before writing it: the object
  // is there, its report is not.
  const Json left = policy::automatic_diagnosis(
      first + "-code", "default", "llm", job(h, "llm")["metadata"]["uid"],
      policy::Monitor::CodeErrorDetection, "worker " + first + " failed");
  REQUIRE(h.client().create(kube::resources::diagnoses, "default", left));
  fail_with(h, "llm", 0, "traceback");
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, first + "-code")); }, 90s));
  CHECK(diagnosis(h, first + "-code")->at("status")["results"][0]["catalogEntry"] ==
        "missing-module");
  CHECK(diagnosis(h, first + "-code")->at("status")["message"] ==
        "ModuleNotFoundError: No module named 'transformers' (/workspace/train.py:12, in "
        "<module>)");

  // A new operator finds the report written and writes it no more, nor another.
  const std::string version = diagnosis(h, first + "-code")->at("metadata")["resourceVersion"];
  h.restart_operator();
  fail_with(h, "llm", 1, "nccl-timeout");
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, second + "-code")); }, 90s));
  CHECK(diagnosis(h, second + "-code")->at("status")["category"] == "Communication");
  std::this_thread::sleep_for(2s);
  CHECK(diagnosis(h, first + "-code")->at("metadata")["resourceVersion"] == version);
  CHECK(diagnoses(h).size() == 2);
  CHECK(diagnosed_events(h, "llm", first + "-code") == 1);
  CHECK(diagnosed_events(h, "llm", second + "-code") == 1);
  CHECK(risk(job(h, "llm")) == "High");  // missing-module is High, the NCCL timeout Medium
}

TEST_CASE("O3 O9: a container that failed and restarted in place (OnFailure) gets its report",
          "[reconcilers][diagnosis][rule:O3][rule:O9]") {
  Harness h({.nodes_yaml = gpu_nodes(2)});
  gpu_pool(h, "train", 2);
  h.apply(training_job("llm", "train", 1, {{"fault-tolerance/job-retry-num", "2"}}, "OnFailure"),
          kube::resources::jobs);
  REQUIRE(h.eventually([&] { return running_pods(h, "llm", "0").size() == 1; }));
  const std::string pod = running_pods(h, "llm", "0")[0]["metadata"]["name"];
  // Killed by someone else than respool (SIGKILL: exit 137), restarted by its kubelet.
  auto killed = h.client().exec("default", pod, "train", {"kill", "-9", "1"});
  REQUIRE(killed);
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, pod + "-code")); }, 90s));
  const Json d = *diagnosis(h, pod + "-code");
  CHECK(d["status"]["results"][0]["catalogEntry"] == "killed-by-signal");
  CHECK(d["status"]["results"][0]["device"]["exitCode"] == 137);
  CHECK(d["status"]["risk"] == "Medium");
  REQUIRE(h.eventually([&] { return risk(job(h, "llm")) == "Medium"; }));
  CHECK(running_pods(h, "llm", "0").size() == 1);  // the same pod runs on
}

TEST_CASE(
    "O11: a Standard diagnosis of an 8-worker job names the one worker whose node carries "
    "a fault code; one for a Job that does not exist ends Failed",
    "[reconcilers][diagnosis][rule:O11]") {
  Harness h({.nodes_yaml = gpu_nodes(8)});
  gpu_pool(h, "train", 8);
  // Without fault tolerance: nothing restarts it, and a Standard diagnosis is still made (O1).
  h.apply(training_job("big", "train", 8, {}, "Never"), kube::resources::jobs);
  REQUIRE(h.eventually([&] { return running_pods(h, "big", "0").size() == 8; }));
  std::string node, pod;
  for (const auto& p : running_pods(h, "big", "0")) {
    if (p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "") == "5") {
      node = p["spec"]["nodeName"];
      pod = p["metadata"]["name"];
    }
  }
  REQUIRE_FALSE(node.empty());
  // The node agent's finding on worker 5's node.
  kube::WriteOptions status_only;
  status_only.subresource = "status";
  auto found = h.client().patch(
      kube::resources::nodes, "", node, kube::PatchType::Strategic,
      Json{{"status",
            {{"conditions",
              Json::array({{{"type", "GPUHealthy"},
                            {"status", "False"},
                            {"reason", "A050101"},
                            {"message", "GPU 3 (GPU-8f2c): volatile uncorrectable ECC errors: 2"},
                            {"lastHeartbeatTime", "2026-11-28T00:00:00Z"},
                            {"lastTransitionTime", "2026-11-28T00:00:00Z"}}})}}}},
      status_only);
  INFO((found ? std::string() : found.error().describe()));
  REQUIRE(found);

  auto ask = [&](const std::string& name, const std::string& job_name) {
    ask_diagnosis(h, name, job_name, "why is it slow?");
  };
  ask("why", "big");
  ask("nothing", "no-such-job");
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, "why")); }, 90s));
  const Json d = *diagnosis(h, "why");
  CHECK(d["spec"]["type"] == "Standard");  // the default
  const Json& s = d["status"];
  CHECK(s["job"]["workers"] == 8);
  CHECK(s["job"]["pool"] == "train");
  CHECK(s["requests"].get<int>() >= 2 + 8);  // pods, events, each node
  std::vector<Json> hardware;
  for (const auto& r : s["results"])
    if (r.value("category", "") == "Hardware") hardware.push_back(r);
  REQUIRE(hardware.size() == 1);
  CHECK(hardware[0]["device"]["node"] == node);
  CHECK(hardware[0]["device"]["pod"] == pod);
  CHECK(hardware[0]["device"]["worker"] == 5);
  CHECK(hardware[0]["device"]["isolationCode"] == "A050101");
  CHECK(hardware[0]["device"]["accelerator"] == "GPU 3 (GPU-8f2c)");
  CHECK(s["risk"] == "Medium");
  CHECK(s["category"] == "Hardware");
  REQUIRE(h.eventually([&] { return diagnosed_events(h, "big", "why") == 1; }));
  // Asked for while no operator runs, reported by the next; the one before is not redone.
  const std::string version = d["metadata"]["resourceVersion"];
  h.restart_operator();
  ask("again", "big");
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, "again")); }, 90s));
  CHECK(diagnosis(h, "why")->at("metadata")["resourceVersion"] == version);
  CHECK(diagnosed_events(h, "big", "why") == 1);
  CHECK(diagnosed_events(h, "big", "again") == 1);

  REQUIRE(h.eventually([&] {
    auto n = diagnosis(h, "nothing");
    return n && n->value("status", Json::object()).value("phase", "") == "Failed";
  }));
  CHECK(diagnosis(h, "nothing")->at("status")["reason"] == "JobNotFound");
}

TEST_CASE(
    "O6: a protected Job shows Monitoring while a Standard diagnosis of it gathers, then "
    "its level again; O11: a Diagnosis created before its Job waits for it",
    "[reconcilers][diagnosis][rule:O6][rule:O11]") {
  Harness h({.nodes_yaml = gpu_nodes(2)});
  gpu_pool(h, "train", 2);
  h.apply(training_job("llm", "train", 2, {{"fault-tolerance/job-retry-num", "2"}}),
          kube::resources::jobs);
  REQUIRE(h.eventually(
      [&] { return running_pods(h, "llm", "0").size() == 2 && risk(job(h, "llm")) == "NoRisk"; }));
  // The gathering's LIST of the Job's events takes 3 s: long enough to see the check run.
  h.sandbox().api_server().faults().set_latency(3000ms, "list", "events");
  ask_diagnosis(h, "check", "llm");
  REQUIRE(h.eventually([&] { return risk(job(h, "llm")) == "Monitoring"; }, 10s));
  CHECK_FALSE(completed(diagnosis(h, "check")));
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, "check")); }, 30s));
  h.sandbox().api_server().faults().clear();
  REQUIRE(h.eventually([&] { return risk(job(h, "llm")) == "NoRisk"; }, 10s));
  CHECK(diagnosis(h, "check")->at("status")["risk"] == "NoRisk");

  // O11: a Diagnosis that reaches the operator before its Job (one apply of both) waits for it.
  ask_diagnosis(h, "early", "later");
  std::this_thread::sleep_for(2s);
  h.apply(training_job("later", "train", 1, {}), kube::resources::jobs);
  REQUIRE(h.eventually([&] { return completed(diagnosis(h, "early")); }, 30s));
  CHECK(diagnosis(h, "early")->at("status")["job"]["name"] == "later");
}
