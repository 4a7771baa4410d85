// Diagnosis reports (O9, O10): a recognised failure and a node fault restart become results with
// the documents' fields, the Automatic reports' names are one per anomaly, and the summary is
// the highest risk's.

#include <catch2/catch.hpp>

#include "reconcilers/policy/catalog.hpp"
#include "reconcilers/policy/diagnosis_job.hpp"
#include "reconcilers/policy/diagnosis_report.hpp"
#include "reconcilers/policy/standard_diagnosis.hpp"
#include "reconcilers/policy/time.hpp"
#include "test/policy/shipped_catalogue.hpp"
#include "yaml_json.hpp"

using namespace respool::policy;
using Json = nlohmann::json;
using respool::policy::test::load_yaml;
using respool::policy::test::shipped;

namespace {

Json node_with(Json conditions) {
  return {{"metadata", {{"name", "gpu-3"}}}, {"status", {{"conditions", std::move(conditions)}}}};
}

}  // namespace

TEST_CASE(
    "O9: a CUDA out-of-memory becomes a report naming the exception, the user's line "
    "and the solution",
    "[policy][diagnosis][rule:O9]") {
  const std::string log =
      "2026-11-27T23:46:40.000000000Z epoch 3 step 1200 loss 1.82\n"
      "2026-11-27T23:46:44.100000000Z Traceback (most recent call last):\n"
      "2026-11-27T23:46:44.100000001Z   File \"/workspace/train.py\", line 88, in <module>\n"
      "2026-11-27T23:46:44.100000002Z     loss.backward()\n"
      "2026-11-27T23:46:44.100000003Z   File "
      "\"/usr/lib/python3/dist-packages/torch/_tensor.py\", line 522, in backward\n"
      "2026-11-27T23:46:44.100000004Z torch.OutOfMemoryError: CUDA out of memory. Tried to "
      "allocate 2.00 GiB.\n";
  auto finding = match_failure(shipped(), {1, "Error"}, log);
  REQUIRE(finding);
  FaultyDevice device;
  device.node = "gpu-3";
  device.pod = "llm-0-abcde";
  device.worker = 0;
  device.exit_code = 1;
  auto r = code_error_result(shipped(), *finding, device);
  CHECK(r.catalog_entry == "cuda-out-of-memory");
  CHECK(r.category == FailureCategory::Code);
  CHECK(r.risk == Risk::High);
  CHECK(r.component == "PyTorch");
  CHECK(r.fault ==
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
        "(/workspace/train.py:88, in <module>)");
  CHECK_FALSE(r.solution.empty());
  REQUIRE_FALSE(r.key_lines.empty());
  CHECK(r.key_lines.back().pod == "llm-0-abcde");
  CHECK(r.key_lines.back().time == "2026-11-27T23:46:44.100000004Z");
  const Json out = results_json({r})[0];
  CHECK(out["device"] ==
        Json{{"node", "gpu-3"}, {"pod", "llm-0-abcde"}, {"worker", 0}, {"exitCode", 1}});
  CHECK(out["category"] == "Code");
  CHECK(out["risk"] == "High");
  CHECK(out["keyLines"].size() <= 5);
}

TEST_CASE("O9: a failure recognised by its exit alone says how it was recognised",
          "[policy][diagnosis][rule:O9]") {
  auto finding = match_failure(shipped(), {139, "Error"}, "step 9\n");
  REQUIRE(finding);
  FaultyDevice device;
  device.pod = "p";
  auto r = code_error_result(shipped(), *finding, device);
  CHECK(r.catalog_entry == "segmentation-fault");
  CHECK(r.fault.find("exit code 139") != std::string::npos);
}

TEST_CASE("O9: a node fault restart names the node, the worker, the code and the GPU",
          "[policy][diagnosis][rule:O9]") {
  RunningRecord record;
  record.end_reason = "node gpu-3 abnormal: GPU memory (A050101)";
  record.end_related_task = "worker-2";
  record.end_recover = Recover::JobRescheduleWithTaint;
  const auto findings = node_findings(node_with(
      Json::array({{{"type", "Ready"}, {"status", "True"}},
                   {{"type", "InfiniBandHealthy"},
                    {"status", "False"},
                    {"reason", "A050147"},
                    {"message", "mlx5_0 port 1: state DOWN"}},
                   {{"type", "GPUHealthy"},
                    {"status", "False"},
                    {"reason", "A050101"},
                    {"message", "GPU 3 (GPU-8f2c): volatile uncorrectable ECC errors: 2"}}})));
  REQUIRE(findings.size() == 2);
  auto r = fault_restart_result(record, findings);
  REQUIRE(r);
  CHECK(r->risk == Risk::Medium);
  CHECK(r->category == FailureCategory::Hardware);
  CHECK(r->device.node == "gpu-3");
  CHECK(r->device.worker == 2);
  CHECK(r->device.isolation_code == "A050101");
  CHECK(r->device.accelerator == "GPU 3 (GPU-8f2c)");
  CHECK(r->module == "GPU memory");
  CHECK(r->fault == record.end_reason);
  CHECK(r->solution.starts_with("respool restarted the job without node gpu-3 (A050101)."));

  SECTION("a not-ready node, its agent silent") {
    record.end_reason = "node gpu-4 not ready (A050202)";
    auto nr = fault_restart_result(record, {});
    REQUIRE(nr);
    CHECK(nr->device.node == "gpu-4");
    CHECK(nr->device.isolation_code == "A050202");
    CHECK(nr->device.accelerator.empty());
  }
  SECTION("a run that ended on the code's own exit is no node fault") {
    record.end_reason = "exit with 1";
    CHECK_FALSE(fault_restart_result(record, findings));
  }
}

TEST_CASE("O9: the isolation codes a reason names", "[policy][diagnosis][rule:O9]") {
  CHECK(codes_in("node n abnormal: GPU (A050101, A050147)") ==
        std::vector<std::string>{"A050101", "A050147"});
  CHECK(codes_in("disrupted on node n (DeletionByTaintManager)").empty());
  CHECK(codes_in("((((").empty());
}

TEST_CASE("O9, O10: Automatic reports are named after their anomaly, within 253 characters",
          "[policy][diagnosis][rule:O9][rule:O10]") {
  CHECK(code_error_name("llm-0-abcde", 0) == "llm-0-abcde-code");
  CHECK(code_error_name("llm-0-abcde", 2) == "llm-0-abcde-code-2");
  CHECK(fault_restart_name("llm", 1) == "llm-restart-1");
  const std::string a(300, 'a'), b = std::string(299, 'a') + "b";
  const std::string na = code_error_name(a, 0), nb = code_error_name(b, 0);
  CHECK(na.size() <= 253);
  CHECK(na.ends_with("-code"));
  CHECK(na != nb);
}

TEST_CASE("O10: the summary is the highest risk's; no results is NoRisk",
          "[policy][diagnosis][rule:O10]") {
  auto result = [](std::string fault, FailureCategory category, Risk risk) {
    DiagnosisResult r;
    r.symptom = "s";
    r.fault = std::move(fault);
    r.category = category;
    r.risk = risk;
    return r;
  };
  const DiagnosisResult low = result("f1", FailureCategory::Environment, Risk::Low);
  const DiagnosisResult high = result("f2", FailureCategory::Code, Risk::High);
  Gathered g;
  g.job.name = "llm";
  g.job.uid = "u";
  g.job.workers = 8;
  g.results = {low, high};
  g.started = TimePoint{} + std::chrono::hours(500000);
  g.completed = g.started + std::chrono::milliseconds(1250);
  g.monitor = Monitor::CodeErrorDetection;
  Json s = completed_status(g);
  CHECK(s["phase"] == "Completed");
  CHECK(s["risk"] == "High");
  CHECK(s["category"] == "Code");
  CHECK(s["message"] == "f2");
  CHECK(s["duration"] == "1.25s");
  CHECK(s["monitor"] == "CodeErrorDetection");
  CHECK(s["results"][0]["fault"] == "f2");
  CHECK(s["job"]["workers"] == 8);
  g.results.clear();
  g.completed = g.started + std::chrono::seconds(125);
  s = completed_status(g);
  CHECK(s["risk"] == "NoRisk");
  CHECK_FALSE(s.contains("category"));
  CHECK(s["duration"] == "2m5s");
}

TEST_CASE("O9: an Automatic report is owned by its Job and labelled with it",
          "[policy][diagnosis][rule:O9]") {
  Json d =
      automatic_diagnosis("llm-restart-1", "team-a", "llm", "uid-1", Monitor::FaultMonitoring, "");
  CHECK(d["kind"] == "Diagnosis");
  CHECK(d["metadata"]["namespace"] == "team-a");
  CHECK(d["metadata"]["ownerReferences"][0]["uid"] == "uid-1");
  CHECK(d["metadata"]["ownerReferences"][0]["kind"] == "Job");
  CHECK(d["metadata"]["labels"]["respool.io/job"] == "llm");
  CHECK(d["metadata"]["labels"]["respool.io/monitor"] == "FaultMonitoring");
  CHECK(d["spec"] == Json{{"job", "llm"}, {"type", "Automatic"}});
}

TEST_CASE("O11: a Standard diagnosis reports every finding, the highest risk first",
          "[policy][diagnosis][rule:O11]") {
  JobEvidence e;
  e.workers = {{.pod = "big-0", .node = "n-0", .worker = 0, .failure = std::nullopt, .log = ""},
               {.pod = "big-1",
                .node = "n-1",
                .worker = 1,
                .failure = WorkerFailure{1, "Error"},
                .log = "Traceback (most recent call last):\n  File \"/w/train.py\", line 3, in "
                       "<module>\nModuleNotFoundError: No module named 'x'\n"},
               {.pod = "big-2", .node = "n-2", .worker = 2, .failure = std::nullopt, .log = ""}};
  e.nodes = {{.name = "n-0", .missing = false, .findings = {}},
             {.name = "n-1", .missing = false, .findings = {}},
             {.name = "n-2",
              .missing = false,
              .findings = {{"NPUHealthy", "A050122", "NPU 5", "NPU 5: major alarm"}}}};
  e.operations = {{.name = "reset-n-0", .type = "Reset", .phase = "Succeeded", .nodes = {"n-0"}}};
  e.warnings = {{"2026-11-28T00:00:01Z", "Diagnosed", "diagnosis x: ..."},
                {"2026-11-28T00:00:02Z", "BackoffLimitExceeded", "Job has reached the limit"}};
  const auto results = standard_results(e, &shipped());
  REQUIRE(results.size() == 4);
  CHECK(results[0].catalog_entry == "missing-module");  // High
  CHECK(results[0].device.pod == "big-1");
  CHECK(results[1].device.node == "n-2");  // Medium: the node finding, its worker named
  CHECK(results[1].device.worker == 2);
  CHECK(results[1].device.isolation_code == "A050122");
  CHECK(results[1].device.accelerator == "NPU 5");
  CHECK(results[2].risk == Risk::Low);
  CHECK(results[2].fault.find("reset-n-0") != std::string::npos);
  CHECK(results[3].key_lines.size() == 1);  // the Diagnosed event is respool's own
  CHECK(results[3].fault == "BackoffLimitExceeded: Job has reached the limit");
  CHECK(standard_results({}, &shipped()).empty());
}

TEST_CASE("O9: a report's creator is the manager that wrote the object first",
          "[policy][diagnosis][rule:O9]") {
  const Json job = {{"metadata",
                     {{"name", "llm"},
                      {"managedFields", Json::array({{{"manager", "kube-controller-manager"},
                                                      {"operation", "Update"},
                                                      {"subresource", "status"},
                                                      {"time", "2026-11-28T00:00:00Z"}},
                                                     {{"manager", "respool"},
                                                      {"operation", "Update"},
                                                      {"time", "2026-11-28T00:05:00Z"}},
                                                     {{"manager", "kubectl-client-side-apply"},
                                                      {"operation", "Update"},
                                                      {"time", "2026-11-28T00:00:01Z"}}})}}}};
  CHECK(creator_of(job) == "kubectl-client-side-apply");
  CHECK(creator_of(Json{{"metadata", {{"name", "x"}}}}).empty());
  CHECK(
      creator_of(Json{{"metadata", {{"managedFields", Json::array({{{"manager", 3}}})}}}}).empty());
}
