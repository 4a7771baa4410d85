// A Standard diagnosis (issue 29, O11) of one training job in the sandbox, the whole operator in
// one process over real HTTPS: a WORKERS-worker Indexed Job, one node each, FAILED of whose
// workers failed with a Python traceback, and a node agent's finding on one more worker's node;
// ROUNDS Diagnoses asked for in turn. For each: the time from its creation to its report
// (real, and the report's own duration), the API requests the report says it made against
// those the sandbox counted from the operator meanwhile, and the log bytes read per failed
// worker.
//
//   build/bench/bench_standard_diagnosis [WORKERS [FAILED [ROUNDS]]] 2>/dev/null
// BENCH_SHOW_REPORT=1 prints each report (status) on stderr.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "apimachinery/duration.hpp"
#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

namespace {

Json job(int workers) {
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", "big"}, {"namespace", "default"}}},
      {"spec",
       {{"completionMode", "Indexed"},
        {"completions", workers},
        {"parallelism", workers},
        {"backoffLimit", 10000},  // failed workers are replaced: the others run on
        {"template",
         {{"metadata", {{"annotations", {{"sandbox.respool.io/log-interval", "10"}}}}},
          {"spec",
           {{"restartPolicy", "Never"},
            {"nodeSelector", {{"respool.io/pool", "gpu"}}},
            {"tolerations", Json::array({{{"key", "respool.io/pool"}, {"operator", "Exists"}}})},
            {"containers", Json::array({{{"name", "train"},
                                         {"image", "trainer:1"},
                                         {"resources",
                                          {{"requests", {{"nvidia.com/gpu", "8"}}},
                                           {"limits", {{"nvidia.com/gpu", "8"}}}}}}})}}}}}}}};
}

std::vector<Json> pods(kube::Client& c) {
  kube::ListOptions o;
  o.label_selector = "batch.kubernetes.io/job-name=big";
  return must(c.list(kube::resources::pods, "default", o), "list pods")["items"]
      .get<std::vector<Json>>();
}

}  // namespace

int main(int argc, char** argv) {
  begin("bench_standard_diagnosis", std::chrono::minutes(20));
  const int workers = argc > 1 ? std::atoi(argv[1]) : 64;
  const int failed = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  if (workers < 2 || workers > 512) die("WORKERS: 2 to 512");
  if (failed < 0 || failed >= workers) die("FAILED: 0 to WORKERS-1");
  if (rounds < 1 || rounds > 20) die("ROUNDS: 1 to 20");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  runtime::ScaledClock clock(1);
  Bench b("nodes:\n- {flavor: gpu-8x-a100, zone: az-1, count: " + std::to_string(workers) +
              ", namePrefix: g, capacity: {cpu: \"96\", memory: 1Ti, pods: \"110\", "
              "nvidia.com/gpu: \"8\"}}\n",
          clock, workers);
  b.start_operator();
  kube::Client& c = b.client();
  training_pool(c, "gpu", "gpu-8x-a100", workers);
  b.wait_for_phase(kube::resources::resourcepools, "gpu", "Running", std::chrono::minutes(5));
  must(c.create(kube::resources::jobs, "default", job(workers)), "create job");
  phase("starting " + std::to_string(workers) + " workers");
  const auto deadline = Steady::now() + std::chrono::minutes(5);
  for (;;) {
    int running = 0;
    for (const auto& p : pods(c))
      running += p["status"].value("phase", "") == "Running";
    if (running == workers) break;
    if (Steady::now() > deadline) die("the workers did not all start");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  // Some log lines, then FAILED workers fail with a traceback, and one more worker's node gets a
  // node agent's finding.
  clock.sleep_for(std::chrono::seconds(5));
  std::string faulty;
  int n = 0;
  for (const auto& p : pods(c)) {
    const std::string name = p["metadata"]["name"];
    if (n < failed) {
      must(c.patch(kube::resources::pods, "default", name, kube::PatchType::Merge,
                   Json{{"metadata",
                         {{"annotations",
                           {{"sandbox.respool.io/failure", "traceback"},
                            {"sandbox.respool.io/run-seconds", "0"}}}}}}),
           "fail a worker");
    } else if (faulty.empty()) {
      faulty = p["spec"]["nodeName"];
    }
    ++n;
  }
  kube::WriteOptions status_only;
  status_only.subresource = "status";
  must(c.patch(
           kube::resources::nodes, "", faulty, kube::PatchType::Strategic,
           Json{{"status",
                 {{"conditions",
                   Json::array({{{"type", "GPUHealthy"},
                                 {"status", "False"},
                                 {"reason", "A050101"},
                                 {"message", "GPU 3: volatile uncorrectable ECC errors: 2"}}})}}}},
           status_only),
       "the agent's finding");
  phase("waiting for the failed workers");
  for (;;) {
    int down = 0;
    for (const auto& p : pods(c))
      down += p["status"].value("phase", "") == "Failed";
    if (down >= failed) break;
    if (Steady::now() > deadline + std::chrono::minutes(2)) die("the workers did not fail");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  settle(b.counts(), std::chrono::milliseconds(1500));  // the automatic reports written

  std::vector<double> real_ms, own_ms, requests, counted, bytes;
  long long results = 0;
  for (int r = 0; r < rounds; ++r) {
    phase("round " + std::to_string(r + 1));
    const std::string name = "ask-" + std::to_string(r);
    b.counts().reset();
    const auto began = Steady::now();
    must(c.create(kube::resources::diagnoses, "default",
                  Json{{"apiVersion", "respool.io/v1alpha1"},
                       {"kind", "Diagnosis"},
                       {"metadata", {{"name", name}, {"namespace", "default"}}},
                       {"spec", {{"job", "big"}}}}),
         "create diagnosis");
    Json status;
    for (;;) {
      status = must(c.get(kube::resources::diagnoses, "default", name), "get diagnosis")
                   .value("status", Json::object());
      if (status.value("phase", "") == "Completed") break;
      if (status.value("phase", "") == "Failed") die("the diagnosis failed: " + status.dump());
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    real_ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - began).count());
    auto own = apimachinery::parse_duration(status.value("duration", "0s"));
    if (!own) die("the report's duration: " + own.error());
    own_ms.push_back(std::chrono::duration<double, std::milli>(*own).count());
    requests.push_back(status.value("requests", 0));
    bytes.push_back(status.value("logBytes", 0));
    results = static_cast<long long>(status.value("results", Json::array()).size());
    if (std::getenv("BENCH_SHOW_REPORT")) std::fprintf(stderr, "%s\n", status.dump(2).c_str());
    std::uint64_t operator_requests = 0;
    for (const auto& [key, count] : b.counts().snapshot())
      if (key.agent == "respool") operator_requests += count;
    counted.push_back(static_cast<double>(operator_requests));
  }
  std::printf(
      "standard diagnosis of a %d-worker job (%d failed runs, one node finding), %d rounds: "
      "median %.0f ms from creation to report (the report's own duration %.0f ms); %.0f API "
      "requests by the report (the sandbox counted %.0f from the operator, its own status write "
      "and event included); %.0f log bytes read, %.0f per failed worker; %lld results\n",
      workers, failed, rounds, median(real_ms), median(own_ms), median(requests), median(counted),
      median(bytes), failed > 0 ? median(bytes) / failed : 0.0, results);
  completed();
}
