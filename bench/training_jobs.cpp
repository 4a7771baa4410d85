// Training jobs in the sandbox, the whole operator in one process over real HTTPS.
// 1. Hang checks: JOBS running Indexed Jobs of 8 workers each (hang-retry, the default 30-minute
//    window, workers logging every 10 simulated seconds) watched for SIM_MINUTES simulated
//    minutes: the operator's pods/log requests per simulated minute, against one request per
//    worker per window (what a check of every worker would cost), and all its requests.
// 2. Recovery: an 8-worker job whose worker's node turns NotReady, ROUNDS times (the node heals
//    between rounds): the time from the node's fault to all 8 workers of the next run running,
//    in real and simulated seconds (the old pods' grace period runs in simulated time).
//
//   build/bench/bench_training_jobs [JOBS [SIM_MINUTES [ROUNDS]]] 2>/dev/null
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

namespace {

Json job(const std::string& name, const std::string& pool, int workers, bool gpus,
         const Json& annotations) {
  Json container = {{"name", "train"}, {"image", "trainer:1"}};
  if (gpus) {
    container["resources"] = {{"requests", {{"nvidia.com/gpu", "8"}}},
                              {"limits", {{"nvidia.com/gpu", "8"}}}};
  }
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
      {"spec",
       {{"completionMode", "Indexed"},
        {"completions", workers},
        {"parallelism", workers},
        {"backoffLimit", 100},
        {"template",
         {{"metadata", {{"annotations", {{"sandbox.respool.io/log-interval", "10"}}}}},
          {"spec",
           {{"restartPolicy", "OnFailure"},
            {"nodeSelector", {{"respool.io/pool", pool}}},
            {"tolerations", Json::array({{{"key", "respool.io/pool"}, {"operator", "Exists"}}})},
            {"containers", Json::array({container})}}}}}}}};
}

// Running, not deleted pods of `job` in run `run` (label respool.io/run; absent: "0"), with nodes.
std::vector<std::pair<int, std::string>> running(kube::Client& c, const std::string& job,
                                                 const std::string& run) {
  kube::ListOptions o;
  o.label_selector = "batch.kubernetes.io/job-name=" + job;
  auto pods = must(c.list(kube::resources::pods, "default", o), "list pods");
  std::vector<std::pair<int, std::string>> out;
  for (const auto& p : pods["items"]) {
    const Json labels = p["metadata"].value("labels", Json::object());
    if (labels.value("respool.io/run", "0") != run || p["status"].value("phase", "") != "Running" ||
        p["metadata"].contains("deletionTimestamp"))
      continue;
    out.emplace_back(std::stoi(labels.value("batch.kubernetes.io/job-completion-index", "0")),
                     p["spec"].value("nodeName", ""));
  }
  return out;
}

std::size_t running_pods(kube::Client& c) {
  auto pods = must(c.list(kube::resources::pods, "default"), "list pods");
  std::size_t n = 0;
  for (const auto& p : pods["items"])
    if (p["status"].value("phase", "") == "Running") ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  begin("bench_training_jobs", std::chrono::minutes(40));
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 100;
  const int sim_minutes = argc > 2 ? std::atoi(argv[2]) : 90;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  if (jobs < 1 || jobs > 200) die("JOBS: 1 to 200");
  if (sim_minutes < 30 || sim_minutes > 600) die("SIM_MINUTES: 30 to 600");
  if (rounds < 1 || rounds > 9) die("ROUNDS: 1 to 9");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  const int cpu_nodes = (jobs * 8 + 99) / 100;
  runtime::ScaledClock clock(60);  // one simulated minute per second
  Bench b("nodes:\n- {flavor: cpu-64c, zone: az-1, count: " + std::to_string(cpu_nodes) +
              ", namePrefix: c, capacity: {cpu: \"64\", memory: 512Gi, pods: \"110\"}}\n"
              "- {flavor: gpu-8x-a100, zone: az-1, count: 10, namePrefix: g, capacity: {cpu: "
              "\"96\", memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"}}\n",
          clock, cpu_nodes + 10);
  b.start_operator();
  kube::Client& c = b.client();
  training_pool(c, "cpu", "cpu-64c", cpu_nodes);
  training_pool(c, "gpu", "gpu-8x-a100", 10);
  b.wait_for_phase(kube::resources::resourcepools, "cpu", "Running", std::chrono::minutes(5));
  b.wait_for_phase(kube::resources::resourcepools, "gpu", "Running", std::chrono::minutes(5));

  // 1. Hang checks of healthy jobs.
  for (int j = 0; j < jobs; ++j)
    must(c.create(kube::resources::jobs, "default",
                  job("h-" + std::to_string(j), "cpu", 8, false,
                      {{"fault-tolerance/hang-retry", "true"}})),
         "create job");
  phase("hang checks: starting " + std::to_string(jobs * 8) + " workers");
  const auto start_deadline = Steady::now() + std::chrono::minutes(5);
  while (running_pods(c) < std::size_t(jobs) * 8) {
    if (Steady::now() > start_deadline) die("the workers did not all start");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  // A first window passes (the first checks are due 30 minutes after the workers' first lines).
  phase("hang checks: simulated minutes passing");
  clock.sleep_for(std::chrono::minutes(31));
  b.counts().reset();
  const auto sim_start = clock.now();
  clock.sleep_for(std::chrono::minutes(sim_minutes));
  const double minutes = std::chrono::duration<double>(clock.now() - sim_start).count() / 60;
  std::uint64_t logs = 0, all = 0;
  for (const auto& [key, n] : b.counts().snapshot()) {
    if (key.agent != "respool") continue;
    all += n;
    if (key.resource == "pods/log") logs += n;
  }
  const double naive = jobs * 8 / 30.0;
  std::printf(
      "hang checks: %d jobs x 8 workers over %.0f simulated minutes: %.1f pods/log requests per "
      "minute (one per worker per 30-minute window would be %.1f: ratio %.2f); all operator "
      "requests %.1f per minute\n",
      jobs, minutes, logs / minutes, naive, logs / minutes / naive, all / minutes);
  for (int j = 0; j < jobs; ++j)
    (void)c.remove(kube::resources::jobs, "default", "h-" + std::to_string(j));

  // 2. Recovery from a node fault.
  must(c.create(kube::resources::jobs, "default",
                job("llm", "gpu", 8, true, {{"fault-tolerance/job-retry-num", "20"}})),
       "create job");
  std::vector<double> real_s, sim_s;
  for (int r = 0; r < rounds; ++r) {
    const std::string run = std::to_string(r), next = std::to_string(r + 1);
    phase("recovery round " + std::to_string(r + 1));
    const auto wait_deadline = Steady::now() + std::chrono::minutes(3);
    while (running(c, "llm", run).size() < 8) {
      if (Steady::now() > wait_deadline) die("run " + run + " never ran 8 workers");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::string node = running(c, "llm", run).front().second;
    const auto start = Steady::now();
    const auto sim = clock.now();
    must(c.patch(kube::resources::nodes, "", node, kube::PatchType::Merge,
                 Json{{"metadata", {{"annotations", {{"sandbox.respool.io/fault", "NotReady"}}}}}}),
         "fault");
    while (running(c, "llm", next).size() < 8) {
      if (Steady::now() > start + std::chrono::minutes(3)) die("run " + next + " never ran");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    real_s.push_back(std::chrono::duration<double>(Steady::now() - start).count());
    sim_s.push_back(std::chrono::duration<double>(clock.now() - sim).count());
    std::printf(
        "restart %d: node %s NotReady -> 8 workers of run %s running: %.2f s (%.0f "
        "simulated s)\n",
        r, node.c_str(), next.c_str(), real_s.back(), sim_s.back());
    must(c.patch(kube::resources::nodes, "", node, kube::PatchType::Merge,
                 Json{{"metadata", {{"annotations", {{"sandbox.respool.io/fault", nullptr}}}}}}),
         "heal");
  }
  std::printf(
      "median of %d: %.2f s from NotReady to the job running again (%.0f simulated s, "
      "time scale 60)\n",
      rounds, median(real_s), median(sim_s));
  completed();
  return 0;
}
