// Training jobs survive node faults and hangs (issue 17; J1-J8), against the sandbox: the
// operator and a simulated cluster whose Job controller, kubelets, pods/log and pods/exec play
// what a real cluster does for Indexed Jobs.

#include "test/reconcilers/training_fixtures.hpp"

using namespace respool;
using namespace respool::test;
using namespace respool::test::training;

TEST_CASE("J3 J4 J7: a worker's node turns NotReady: the job restarts once, as a whole, off it",
          "[reconcilers][trainingjob][rule:J3][rule:J4][rule:J7][rule:O2]") {
  Harness h({.nodes_yaml = gpu_nodes(10)});
  gpu_pool(h, "train", 10);
  h.apply(training_job("llm", "train", 8, {{"fault-tolerance/job-retry-num", "3"}}),
          kube::resources::jobs);
  REQUIRE(h.eventually([&] { return running_pods(h, "llm", "0").size() == 8; }));
  REQUIRE(h.eventually([&] { return records(job(h, "llm")).size() == 1; }));
  CHECK(ledger(job(h, "llm"))["retriesLeft"] == 3);
  CHECK(risk(job(h, "llm")) == "NoRisk");  // O2: protected, nothing found yet

  // Worker 3's node dies.
  std::string node;
  for (const auto& p : running_pods(h, "llm", "0"))
    if (p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "") == "3")
      node = p["spec"]["nodeName"];
  REQUIRE_FALSE(node.empty());
  annotate(h, kube::resources::nodes, "", node, {{"sandbox.respool.io/fault", "NotReady"}});

  REQUIRE(h.eventually(
      [&] {
        auto l = ledger(job(h, "llm"));
        return l.value("retriesUsed", 0) == 1 && !l.contains("restarting") &&
               running_pods(h, "llm", "1").size() == 8;
      },
      120s));
  Json j = job(h, "llm");
  Json l = ledger(j);
  CHECK(l["retriesLeft"] == 2);
  CHECK(l["run"] == 1);
  CHECK(risk(j) == "Medium");  // O2: a fault restart
  CHECK_FALSE(j["spec"].value("suspend", false));
  for (const auto& p : running_pods(h, "llm", "1"))
    CHECK(p["spec"]["nodeName"] != node);
  Json r = records(j);
  REQUIRE(r.size() >= 1);
  CHECK(r[0]["endRelatedTask"] == "worker-3");
  CHECK(r[0]["endRecover"] == "job_reschedule_with_taint");
  CHECK(r[0]["endReason"].get<std::string>().find(node) != std::string::npos);
  CHECK(r[0]["startType"] == "init_or_rescheduled");
  REQUIRE(h.eventually([&] { return records(job(h, "llm")).size() == 2; }));
  CHECK(records(job(h, "llm"))[1]["startType"] == "init_or_rescheduled");
  CHECK_FALSE(records(job(h, "llm"))[1].contains("endAt"));

  // Once: some time later it has not restarted again (the old worker still sits on the dead node).
  std::this_thread::sleep_for(2s);
  CHECK(ledger(job(h, "llm"))["retriesUsed"] == 1);
  bool restarting_event = false, pool_event = false;
  for (const auto& e : h.events_for("llm"))
    restarting_event |= e.value("reason", "") == "Restarting" &&
                        e.value("note", "").find("worker-3") != std::string::npos;
  for (const auto& e : h.events_for("train"))
    pool_event |= e.value("reason", "") == "JobRestarted" &&
                  e.value("note", "").find("default/llm") != std::string::npos;
  CHECK(restarting_event);
  CHECK(pool_event);

  // O9: the fault monitor's report of that restart names the node, the worker and its code.
  Json d;
  REQUIRE(h.eventually([&] {
    auto got = h.client().get(kube::resources::diagnoses, "default", "llm-restart-1");
    if (got) d = *got;
    return got && d["status"].value("phase", "") == "Completed";
  }));
  CHECK(d["status"]["monitor"] == "FaultMonitoring");
  CHECK(d["status"]["risk"] == "Medium");
  CHECK(d["status"]["category"] == "Hardware");
  CHECK(d["status"]["results"][0]["device"]["node"] == node);
  CHECK(d["status"]["results"][0]["device"]["worker"] == 3);
  CHECK(d["status"]["results"][0]["device"]["isolationCode"] == "A050202");
  CHECK(d["metadata"]["ownerReferences"][0]["name"] == "llm");
}

namespace {

// Fails the running worker `index` of the run `run` with `code` (its kubelet ends it now).
void fail_worker(Harness& h, const std::string& job_name, const std::string& run, int index,
                 int code) {
  for (const auto& p : running_pods(h, job_name, run)) {
    if (p["metadata"]["labels"].value("batch.kubernetes.io/job-completion-index", "") ==
        std::to_string(index)) {
      annotate(h, kube::resources::pods, "default", p["metadata"]["name"],
               {{"sandbox.respool.io/exit-code", std::to_string(code)},
                {"sandbox.respool.io/run-seconds", "0"}});
      return;
    }
  }
  FAIL("no running worker " << index << " in run " << run);
}

bool has_event(Harness& h, const std::string& name, const std::string& reason,
               const std::string& text) {
  for (const auto& e : h.events_for(name))
    if (e.value("reason", "") == reason && e.value("note", "").find(text) != std::string::npos)
      return true;
  return false;
}

}  // namespace

TEST_CASE("J1 J2: unconditional retry restarts upon exit code 1, the plain job does not",
          "[reconcilers][trainingjob][rule:J1][rule:J2]") {
  Harness h({.nodes_yaml = gpu_nodes(6)});
  gpu_pool(h, "train", 6);
  h.apply(training_job("any", "train", 2,
                       {{"fault-tolerance/job-retry-num", "2"},
                        {"fault-tolerance/job-unconditional-retry", "true"}},
                       "Never"),
          kube::resources::jobs);
  h.apply(training_job("plain", "train", 2, {{"fault-tolerance/job-retry-num", "2"}}, "Never"),
          kube::resources::jobs);
  h.apply(training_job("wrong", "train", 1, {{"fault-tolerance/job-retry-num", "129"}}, "Never"),
          kube::resources::jobs);
  REQUIRE(h.eventually([&] {
    return running_pods(h, "any", "0").size() == 2 && running_pods(h, "plain", "0").size() == 2 &&
           records(job(h, "any")).size() == 1 && records(job(h, "plain")).size() == 1;
  }));
  fail_worker(h, "any", "0", 1, 1);
  fail_worker(h, "plain", "0", 1, 1);

  REQUIRE(h.eventually([&] {
    return ledger(job(h, "any")).value("retriesUsed", 0) == 1 &&
           running_pods(h, "any", "1").size() == 2;
  }));
  Json r = records(job(h, "any"));
  CHECK(r[0]["endReason"] == "exit with 1");
  CHECK(r[0]["endRelatedTask"] == "worker-1");
  CHECK(r[0]["endRecover"] == "job_reschedule");
  // The plain job: Kubernetes replaced the one pod; respool did not restart the job.
  REQUIRE(h.eventually([&] { return running_pods(h, "plain", "0").size() == 2; }));
  CHECK(ledger(job(h, "plain"))["retriesUsed"] == 0);
  CHECK(risk(job(h, "plain")) == "NoRisk");
  CHECK(risk(job(h, "any")) == "Medium");
  CHECK(records(job(h, "plain")).size() == 1);
  CHECK_FALSE(records(job(h, "plain"))[0].contains("endAt"));

  // J1: a value out of range is named in a Warning, and the job runs without fault tolerance.
  REQUIRE(h.eventually(
      [&] { return has_event(h, "wrong", "InvalidAnnotation", "fault-tolerance/job-retry-num"); }));
  CHECK(annotation(job(h, "wrong"), "respool.io/fault-tolerance").empty());
}

TEST_CASE("J3: retries run out at the set number, and respool says so once",
          "[reconcilers][trainingjob][rule:J3][rule:O2][rule:O5]") {
  Harness h({.nodes_yaml = gpu_nodes(3)});
  gpu_pool(h, "train", 3);
  h.apply(training_job("short", "train", 1,
                       {{"fault-tolerance/job-retry-num", "2"},
                        {"fault-tolerance/job-unconditional-retry", "true"}},
                       "Never"),
          kube::resources::jobs);
  for (int run = 0; run < 3; ++run) {
    const std::string label = std::to_string(run);
    REQUIRE(h.eventually([&] { return running_pods(h, "short", label).size() == 1; }));
    fail_worker(h, "short", label, 0, 3);
    if (run < 2) {
      REQUIRE(h.eventually([&] { return ledger(job(h, "short")).value("run", 0) == run + 1; }));
    }
  }
  REQUIRE(h.eventually([&] { return ledger(job(h, "short")).value("exhausted", false); }));
  Json l = ledger(job(h, "short"));
  CHECK(l["retriesUsed"] == 2);
  CHECK(l["retriesLeft"] == 0);
  Json r = records(job(h, "short"));
  REQUIRE(r.size() == 3);
  CHECK(r[2]["endReason"] == "exit with 3; no restarts left (job-retry-num 2)");
  CHECK_FALSE(r[2].contains("endRecover"));
  CHECK(has_event(h, "short", "RestartsExhausted", "all 2 restarts"));
  CHECK(risk(job(h, "short")) == "High");  // O2: the retries are used up
  std::this_thread::sleep_for(1s);
  CHECK(ledger(job(h, "short"))["run"] == 2);  // no third restart
}

TEST_CASE("J6: a hung job with restartPolicy Never is rescheduled instead, and says both",
          "[reconcilers][trainingjob][rule:J6][rule:J5]") {
  Harness h({.nodes_yaml = gpu_nodes(3), .time_scale = 20});
  gpu_pool(h, "train", 3);
  h.apply(training_job("never", "train", 2,
                       {{"fault-tolerance/job-retry-num", "1"},
                        {"fault-tolerance/hang-retry", "true"},
                        {"respool.io/hang-timeout", "1m"}},
                       "Never"),
          kube::resources::jobs);
  REQUIRE(h.eventually([&] { return running_pods(h, "never", "0").size() == 2; }));
  for (const auto& p : running_pods(h, "never", "0"))
    annotate(h, kube::resources::pods, "default", p["metadata"]["name"],
             {{"sandbox.respool.io/hang", "true"}});
  REQUIRE(h.eventually([&] {
    return ledger(job(h, "never")).value("run", 0) == 1 &&
           running_pods(h, "never", "1").size() == 2;
  }));
  Json l = ledger(job(h, "never"));
  CHECK(l["retriesUsed"] == 1);
  CHECK(l["hangRestarts"] == 1);
  Json r = records(job(h, "never"));
  CHECK(r[0]["endReason"] == "no output for 1m0s");
  CHECK(r[0]["endRecover"] == "job_reschedule");
  CHECK(r[0]["endRecoverBeforeDowngrade"] == "proc_restart");
}

TEST_CASE("J5: a hung job restarts in place three times and not a fourth, on the same pods",
          "[reconcilers][trainingjob][rule:J5][rule:J7][rule:O2]") {
  Harness h({.nodes_yaml = gpu_nodes(3), .time_scale = 20});
  gpu_pool(h, "train", 3);
  Json manifest = training_job("stuck", "train", 2,
                               {{"fault-tolerance/job-retry-num", "1"},
                                {"fault-tolerance/hang-retry", "true"},
                                {"respool.io/hang-timeout", "1m"}});
  // Its workers never write a line: each run hangs, after each in-place restart too.
  manifest["spec"]["template"]["metadata"]["annotations"]["sandbox.respool.io/hang"] = "true";
  h.apply(manifest, kube::resources::jobs);
  REQUIRE(h.eventually([&] { return running_pods(h, "stuck", "0").size() == 2; }));
  std::set<std::string> pods;
  for (const auto& p : running_pods(h, "stuck", "0"))
    pods.insert(p["metadata"]["name"]);

  REQUIRE(h.eventually(
      [&] { return has_event(h, "stuck", "Hung", "not restarted: 3 consecutive hang restarts"); },
      120s));
  Json l = ledger(job(h, "stuck"));
  CHECK(l["hangRestarts"] == 3);
  CHECK(l["retriesUsed"] == 0);  // in-place restarts use no job-retry-num
  CHECK_FALSE(l.contains("killing"));
  std::set<std::string> now;
  for (const auto& p : job_pods(h, "stuck")) {
    now.insert(p["metadata"]["name"]);
    CHECK(restart_count(p) == 3);
    CHECK(p["status"]["phase"] == "Running");
  }
  CHECK(now == pods);  // no pod rescheduled
  Json r = records(job(h, "stuck"));
  REQUIRE(r.size() == 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(r[i]["endRecover"] == "proc_restart");
    CHECK(r[i]["endReason"] == "no output for 1m0s");
  }
  CHECK(r[0]["startType"] == "init_or_rescheduled");
  CHECK(r[1]["startType"] == "restarted");
  CHECK(r[3]["startType"] == "restarted");
  CHECK_FALSE(r[3].contains("endAt"));
  // A fourth window later: still three, the pods untouched.
  h.clock().sleep_for(std::chrono::minutes(2));
  CHECK(ledger(job(h, "stuck"))["hangRestarts"] == 3);
  CHECK(risk(job(h, "stuck")) == "Medium");  // O2: restarted upon a hang
  for (const auto& p : job_pods(h, "stuck"))
    CHECK(restart_count(p) == 3);
  // O3: the processes respool stopped are no code errors: no report of theirs.
  auto reports = h.client().list(kube::resources::diagnoses, "default");
  REQUIRE(reports);
  for (const auto& d : (*reports)["items"])
    CHECK(d["metadata"]["labels"].value("respool.io/monitor", "") != "CodeErrorDetection");
}
