// A pool's jobs summary (status.jobs, Q3–Q4) under churn, the whole operator in one process
// against the sandbox over real HTTPS: a cpu-64c pool with RUNNING bare pods on its nodes and
// PENDING bare pods waiting for it (each asks 100 cpu, more than a node has), then RATE pod
// writes a second for SECONDS (a pending pod deleted, one created, a running pod deleted, one
// created on its node, in turn; each is a pod event, the simulator's status updates more).
// - status.jobs writes per minute during the churn (the aim: one per pool per 5 s, 12 a minute),
//   against one per pod event without coalescing;
// - how long after the churn stops status.jobs shows the final counts (at most the interval);
// - the operator's other writes meanwhile (Queued events: one per job that starts to wait).
//
//   build/bench/bench_pool_jobs [PENDING [RUNNING [RATE [SECONDS]]]] 2>/dev/null
//                                                            (default 1000 5000 50 60)
//
// Real time: the write interval is the operator's clock, and the figure is per real minute.

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

namespace {

constexpr int kPodsPerNode = 100;

Json bare_pod(const std::string& name, const std::string& node, const char* cpu) {
  Json spec = {
      {"tolerations",
       Json::array({{{"key", "respool.io/pool"}, {"operator", "Equal"}, {"value", "p"}}})},
      {"terminationGracePeriodSeconds", 0},
      {"containers",
       Json::array(
           {{{"name", "c"}, {"image", "x"}, {"resources", {{"requests", {{"cpu", cpu}}}}}}})}};
  if (node.empty())
    spec["nodeSelector"] = {{"respool.io/pool", "p"}};
  else
    spec["nodeName"] = node;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", std::move(spec)}};
}

// A node still under admission (A200008) or otherwise isolated takes no pod yet.
bool has_isolation(const Json& node) {
  for (const auto& t : node.value("spec", Json::object()).value("taints", Json::array()))
    if (t.value("key", "").starts_with("isolation.respool.io/")) return true;
  return false;
}

Json jobs_of(kube::Client& c) {
  return must(c.get(kube::resources::resourcepools, "", "p"), "get pool")
      .value("status", Json::object())
      .value("jobs", Json::object());
}

bool shows(kube::Client& c, int pending, int running) {
  const Json jobs = jobs_of(c);
  return jobs.value("pending", -1) == pending && jobs.value("running", -1) == running;
}

// A pool of enough cpu-64c nodes for `running` pods, Running.
std::vector<std::string> make_pool(Bench& bench, int nodes) {
  kube::Client& c = bench.client();
  must(c.create(kube::resources::networks, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "Network"},
                     {"metadata", {{"name", "net-a"}}},
                     {"spec", Json::object()}}),
       "create network");
  must(c.create(kube::resources::resourcepools, "",
                Json{{"apiVersion", "respool.io/v1alpha1"},
                     {"kind", "ResourcePool"},
                     {"metadata", {{"name", "p"}}},
                     {"spec",
                      {{"network", "net-a"},
                       {"jobTypes", Json::array({"Training"})},
                       {"resources", Json::array({{{"flavor", "cpu-64c"}, {"count", nodes}}})}}}}),
       "create pool");
  bench.wait_for_phase(kube::resources::resourcepools, "p", "Running");
  kube::ListOptions in_pool;
  in_pool.label_selector = "respool.io/pool=p";
  // Running once one node is Available (P7): the rest are still on their way.
  const auto deadline = Steady::now() + std::chrono::minutes(3);
  std::vector<std::string> members;
  while (members.size() != static_cast<std::size_t>(nodes)) {
    if (Steady::now() > deadline) die("the pool never had all its nodes");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // Named: a range over a member of a temporary would outlive it.
    const Json listed = must(c.list(kube::resources::nodes, "", in_pool), "list pool");
    members.clear();
    for (const auto& n : listed["items"])
      if (!has_isolation(n)) members.push_back(n["metadata"]["name"]);
  }
  return members;
}

// Pods created from `threads` clients at once (the set-up is not what is measured).
void create_pods(Bench& bench, const std::vector<Json>& pods, int threads) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&bench, &pods, t, threads] {
      kube::ClientOptions o;
      o.user_agent = "bench/" RESPOOL_VERSION;
      auto client = kube::Client::create(bench.sandbox().cluster_config(), o);
      if (!client) die(client.error().describe());
      for (std::size_t i = static_cast<std::size_t>(t); i < pods.size();
           i += static_cast<std::size_t>(threads))
        must((*client)->create(kube::resources::pods, "default", pods[i]), "create pod");
    });
  }
  for (auto& w : workers)
    w.join();
}

struct Churn {
  std::deque<std::string> pending, running;  // names, oldest first
  std::vector<std::string> nodes;
  int next = 0;
};

// One pod write of the churn's cycle: each keeps the counts as they were after two steps.
void churn_step(kube::Client& c, Churn& churn, int step) {
  const std::string name = "churn-" + std::to_string(churn.next++);
  switch (step % 4) {
    case 0:
      must(c.remove(kube::resources::pods, "default", churn.pending.front()), "delete pod");
      churn.pending.pop_front();
      break;
    case 1:
      must(c.create(kube::resources::pods, "default", bare_pod(name, "", "100")), "create pod");
      churn.pending.push_back(name);
      break;
    case 2:
      must(c.remove(kube::resources::pods, "default", churn.running.front()), "delete pod");
      churn.running.pop_front();
      break;
    default: {
      const std::string& node =
          churn.nodes[static_cast<std::size_t>(churn.next) % churn.nodes.size()];
      must(c.create(kube::resources::pods, "default", bare_pod(name, node, "10m")), "create pod");
      churn.running.push_back(name);
    }
  }
}

std::uint64_t status_patches(sandbox::RequestCounts& counts) {
  std::uint64_t n = 0;
  for (const auto& [key, count] : counts.snapshot())
    if (key.agent == "respool" && key.verb == "patch" && key.resource == "resourcepools/status")
      n += count;
  return n;
}

struct Figures {
  int nodes, running, pending;
  double created_s;
  int steps;
  double churned_s;
  std::uint64_t during;
  double caught_up_s;
};

void print_figures(const Figures& f, const WriteSummary& w) {
  std::printf("pool p: %d nodes, %d running and %d pending pods (created in %.1f s)\n", f.nodes,
              f.running, f.pending, f.created_s);
  std::printf(
      "churn: %d pod writes in %.1f s (%.1f a second); status.jobs writes: %llu, %.1f a minute "
      "(aim: at most 12, one per 5 s; one per pod event would be %.0f)\n",
      f.steps, f.churned_s, f.steps / f.churned_s, static_cast<unsigned long long>(f.during),
      f.during * 60.0 / f.churned_s, f.steps * 60.0 / f.churned_s);
  std::printf("status.jobs showed the final counts %.2f s after the churn stopped\n",
              f.caught_up_s);
  std::printf("operator writes since the churn began: %llu, %llu events:%s\n",
              static_cast<unsigned long long>(w.writes), static_cast<unsigned long long>(w.events),
              w.detail.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  begin("bench_pool_jobs", std::chrono::minutes(20));
  const int pending = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int running = argc > 2 ? std::atoi(argv[2]) : 5000;
  const int rate = argc > 3 ? std::atoi(argv[3]) : 50;
  const int seconds = argc > 4 ? std::atoi(argv[4]) : 60;
  if (pending < 1 || running < 1 || rate < 1 || seconds < 1)
    die("PENDING, RUNNING, RATE and SECONDS are at least 1");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  const int nodes = (running + kPodsPerNode - 1) / kPodsPerNode;
  Bench bench(
      {.nodes_yaml = "nodes:\n- {flavor: cpu-64c, zone: az-1, count: " + std::to_string(nodes) +
                     ", namePrefix: n-, capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}}\n",
       .nodes = static_cast<std::size_t>(nodes)});
  kube::Client& c = bench.client();
  auto& counts = bench.counts();
  bench.start_operator();
  Churn churn;
  churn.nodes = make_pool(bench, nodes);

  phase("creating " + std::to_string(running) + " running and " + std::to_string(pending) +
        " pending pods");
  std::vector<Json> pods;
  for (int i = 0; i < running; ++i) {
    churn.running.push_back("run-" + std::to_string(i));
    pods.push_back(bare_pod(churn.running.back(),
                            churn.nodes[static_cast<std::size_t>(i / kPodsPerNode)], "10m"));
  }
  for (int i = 0; i < pending; ++i) {
    churn.pending.push_back("wait-" + std::to_string(i));
    pods.push_back(bare_pod(churn.pending.back(), "", "100"));
  }
  const auto creating = Steady::now();
  create_pods(bench, pods, 4);
  const double created_s = std::chrono::duration<double>(Steady::now() - creating).count();
  phase("waiting for status.jobs to show them");
  while (!shows(c, pending, running))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  settle(counts, std::chrono::milliseconds(6000));

  counts.reset();
  phase("churning at " + std::to_string(rate) + " pod writes a second");
  const auto start = Steady::now();
  const auto period = std::chrono::nanoseconds(1'000'000'000LL / rate);
  int steps = 0;
  while (Steady::now() - start < std::chrono::seconds(seconds)) {
    churn_step(c, churn, steps++);
    std::this_thread::sleep_until(start + period * steps);
  }
  const double churned_s = std::chrono::duration<double>(Steady::now() - start).count();
  const std::uint64_t during = status_patches(counts);
  phase("waiting for status.jobs to show the final counts");
  const auto stopped = Steady::now();
  // Two steps of the four undo the other two: after a whole cycle the counts are the first ones.
  while (steps % 4 != 0)
    churn_step(c, churn, steps++);
  while (!shows(c, pending, running))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double caught_up_s = std::chrono::duration<double>(Steady::now() - stopped).count();

  print_figures({nodes, running, pending, created_s, steps, churned_s, during, caught_up_s},
                summarize_writes(counts));
  completed();
  return 0;
}
