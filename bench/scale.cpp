// A large cluster (issue 30): the sandbox (API server and simulator, in this process) with NODES
// free nodes (35% gpu-8x-a100, 20% gpu-8x-h100, 20% npu-8x-910b, 25% cpu-64c) and PODS pods of
// realistic size (bench/realistic_pod.hpp) of other workloads on the CPU nodes, and
// respool-operator as its own process. Phases:
//   sync      the operator's start until /readyz (every cache synced), its RSS and CPU; then the
//             same cluster through client-go's shared informers (test/clientgo, CLIENTGO) for
//             the ratios;
//   create    POOLS pools at once on 10 Networks: the ten largest 300 to 390 nodes of A100 with a
//             driver, the others 10 to 69 nodes of A100, H100 or NPU (sizes scale with
//             NODES/20,000);
//   resize    every even pool grows by a tenth (at least one node), every odd one shrinks by one;
//   upgrade   the ten largest change driver version (Secure, maxUnavailable 10%);
//   replace   one Replace NodeOperation in each of up to 100 other pools.
// Each phase prints its time to converge, the operator's writes (events apart) against the
// minimal, its RSS and CPU seconds, and the p50/p99 of its reconciles in that phase.
//
//   build/bench/bench_scale [NODES=20000 [PODS=60000 [POOLS=200 [CLIENTGO=path|-]]]] 2>/dev/null
//
// RESPOOL_BENCH_SYNC_AB=OTHER_OPERATOR: the sync alone instead of the phases, five times each of
// another build's respool-operator and this build's, interleaved on the one cluster, then their
// medians and ratios: a change to the caches or the lists measured apart from the host's drift.

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench/operator_process.hpp"
#include "bench/realistic_pod.hpp"
#include "bench/support.hpp"
#include "operator/runtime/log.hpp"

using namespace respool;
using namespace respool::bench;

namespace {

const std::string kDriver[2] = {"535.104.05", "550.54.15"};

struct PoolPlan {
  std::string name, flavor;
  int count = 0;
  bool driver = false;
};

std::vector<PoolPlan> plan_pools(int pools, double scale) {
  static const char* flavors[3] = {"gpu-8x-a100", "gpu-8x-h100", "npu-8x-910b"};
  std::vector<PoolPlan> out;
  for (int i = 0; i < pools; ++i) {
    PoolPlan p{"pool-" + std::to_string(i), i < 10 ? flavors[0] : flavors[i % 3], 0, i < 10};
    const int size = i < 10 ? 300 + 10 * i : 10 + (i * 53) % 60;
    p.count = std::max(1, static_cast<int>(size * scale));
    out.push_back(p);
  }
  return out;
}

std::string nodes_yaml(int nodes) {
  auto group = [&](const char* flavor, const char* prefix, double share, const char* capacity,
                   bool driver) {
    return "- {flavor: " + std::string(flavor) +
           ", zone: az-1, count: " + std::to_string(std::max(1, static_cast<int>(nodes * share))) +
           ", namePrefix: " + prefix +
           (driver ? ", driverVersion: \"" + kDriver[0] + "\"" : std::string()) + ", capacity: {" +
           capacity + "}}\n";
  };
  return "nodes:\n" +
         group("gpu-8x-a100", "a100", 0.35,
               "cpu: \"96\", memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"", true) +
         group("gpu-8x-h100", "h100", 0.20,
               "cpu: \"96\", memory: 1Ti, pods: \"110\", nvidia.com/gpu: \"8\"", true) +
         group("npu-8x-910b", "npu", 0.20,
               "cpu: \"192\", memory: 1Ti, pods: \"110\", huawei.com/Ascend910: \"8\"", false) +
         group("cpu-64c", "cpu", 0.25, "cpu: \"64\", memory: 256Gi, pods: \"110\"", false);
}

// Other workloads' pods, bound to the CPU nodes, written by 4 clients.
void write_pods(Bench& b, int pods, int cpu_nodes) {
  phase("writing " + std::to_string(pods) + " pods");
  must(b.client().create(kube::resources::namespaces, "",
                         Json{{"metadata", {{"name", "workloads"}}}}),
       "namespace");
  std::atomic<int> next{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&] {
      auto c = must(kube::Client::create(b.sandbox().cluster_config()), "client");
      for (int i = next++; i < pods; i = next++) {
        // A realistic pod (bench/realistic_pod.hpp) that asks for CPU only, as a CPU node's do.
        Json pod = pod_template();
        pod["metadata"]["name"] = "infer-" + std::to_string(i / 10) + "-" + std::to_string(i);
        pod["metadata"]["labels"]["app"] = "infer-" + std::to_string(i / 10);
        pod["spec"]["nodeName"] = "cpu-" + std::to_string(1 + i % cpu_nodes);
        pod["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "500m"}}}};
        pod["spec"]["volumes"].erase(1);  // no dataset claim
        pod["spec"]["containers"][0]["volumeMounts"].erase(0);
        must(c->create(kube::resources::pods, "workloads", pod), "pod");
      }
    });
  }
  for (auto& w : writers)
    w.join();
}

bool pool_converged(const Json& pool) {
  const Json& st = pool.value("status", Json::object());
  int desired = 0;
  for (const auto& r : pool["spec"]["resources"])
    desired += r.value("count", 0);
  const Json& nodes = st.value("nodes", Json::object());
  return st.value("observedGeneration", 0) == pool["metadata"].value("generation", 0) &&
         st.value("phase", "") == "Running" && nodes.value("total", -1) == desired &&
         nodes.value("available", -1) == desired;
}

std::size_t converged_pools(kube::Client& c) {
  Json pools = must(c.list(kube::resources::resourcepools, ""), "list pools");
  return static_cast<std::size_t>(std::count_if(pools["items"].begin(), pools["items"].end(),
                                                [](const Json& p) { return pool_converged(p); }));
}

class Phases {
 public:
  Phases(Bench& b, OperatorProcess& op) : b_(b), op_(op) {}
  void begin(const std::string& name) {
    phase(name);
    name_ = name;
    b_.counts().reset();
    hist_ = op_.reconcile_time();
    cpu_ = op_.cpu_s();
    start_ = Steady::now();
  }
  void wait(const std::function<bool()>& done, std::chrono::minutes limit) {
    const auto deadline = Steady::now() + limit;
    while (!done()) {
      if (Steady::now() > deadline) die(name_ + ": did not converge in time");
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
  void end(std::uint64_t minimal, const std::string& note) {
    const double s = std::chrono::duration<double>(Steady::now() - start_).count();
    settle(b_.counts(), std::chrono::milliseconds(2000));
    const WriteSummary w = summarize_writes(b_.counts());
    const Histogram h = op_.reconcile_time().minus(hist_);
    std::printf(
        "%-8s %7.1f s  writes %6llu (minimal %llu, ratio %.2f) events %llu  RSS %ld MiB  "
        "CPU %.1f s  reconcile p50 %.1f ms p99 %.1f ms (%.0f)  %s\n   %s\n",
        name_.c_str(), s, static_cast<unsigned long long>(w.writes),
        static_cast<unsigned long long>(minimal),
        minimal ? static_cast<double>(w.writes) / static_cast<double>(minimal) : 0.0,
        static_cast<unsigned long long>(w.events), op_.rss_kib() / 1024, op_.cpu_s() - cpu_,
        1000 * h.quantile(0.5), 1000 * h.quantile(0.99),
        h.buckets.empty() ? 0.0 : h.buckets.rbegin()->second, note.c_str(), w.detail.c_str());
    std::fflush(stdout);
  }

 private:
  Bench& b_;
  OperatorProcess& op_;
  std::string name_;
  Histogram hist_;
  double cpu_ = 0;
  Steady::time_point start_;
};

Json pool_object(const PoolPlan& p, int index) {
  Json spec = {{"network", "net-" + std::to_string(index % 10)},
               {"jobTypes", Json::array({"Training"})},
               {"resources", Json::array({{{"flavor", p.flavor}, {"count", p.count}}})}};
  if (p.driver)
    spec["driver"] = {{"gpuVersion", kDriver[0]},
                      {"upgrade", {{"mode", "Secure"}, {"maxUnavailable", "10%"}}}};
  return {{"apiVersion", "respool.io/v1alpha1"},
          {"kind", "ResourcePool"},
          {"metadata", {{"name", p.name}}},
          {"spec", spec}};
}

bool upgraded(kube::Client& c, const std::vector<PoolPlan>& pools) {
  for (const auto& p : pools) {
    if (!p.driver) continue;
    kube::ListOptions in_pool;
    in_pool.label_selector = "respool.io/pool=" + p.name;
    Json nodes = must(c.list(kube::resources::nodes, "", in_pool), "list nodes");
    for (const auto& n : nodes["items"]) {
      const Json& labels = n["metadata"].value("labels", Json::object());
      if (labels.value("respool.io/driver-version", "") != kDriver[1] ||
          labels.value("respool.io/driver-upgrade-state", "") != "upgrade-done")
        return false;
    }
  }
  return true;
}

// Each build's operator started in turn until ready and ended, five rounds.
void sync_ab(Bench& b, const std::string& other, const std::string& work) {
  phase("sync A/B");
  const std::string binary[2] = {other, RESPOOL_OPERATOR_BINARY};
  std::vector<double> ready[2], rss[2], cpu[2];
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 2; ++i) {
      OperatorProcess op(b.sandbox().kubeconfig_path().string(), source("config/catalog.yaml"),
                         work + "/operator-ab.log", binary[i]);
      ready[i].push_back(op.wait_ready(std::chrono::minutes(10)));
      rss[i].push_back(static_cast<double>(op.rss_kib()) / 1024.0);
      cpu[i].push_back(op.cpu_s());
    }
  }
  for (int i = 0; i < 2; ++i)
    std::printf("sync A/B %-5s %7.2f s to ready  RSS %.0f MiB  CPU %.2f s  (medians of 5; %s)\n",
                i == 0 ? "other" : "this", median(ready[i]), median(rss[i]), median(cpu[i]),
                binary[i].c_str());
  std::printf("sync A/B ratios this/other: time %.3f  RSS %.3f  CPU %.3f\n",
              median(ready[1]) / median(ready[0]), median(rss[1]) / median(rss[0]),
              median(cpu[1]) / median(cpu[0]));
}

}  // namespace

int main(int argc, char** argv) {
  bench::begin("bench_scale", std::chrono::minutes(90));
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each phase's line as it ends, into a file too
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 20'000;
  const int pods = argc > 2 ? std::atoi(argv[2]) : 60'000;
  const int pool_count = argc > 3 ? std::atoi(argv[3]) : 200;
  const std::string clientgo = argc > 4 ? argv[4] : "-";
  if (nodes < 20 || pool_count < 1 || pool_count > 200) die("NODES >= 20, POOLS 1 to 200");
  runtime::log::configure(runtime::log::Format::Text, runtime::log::Level::Error);
  const double scale = nodes / 20'000.0;
  const int cpu_nodes = std::max(1, static_cast<int>(nodes * 0.25));
  const int registered = std::max(1, static_cast<int>(nodes * 0.35)) +
                         std::max(1, static_cast<int>(nodes * 0.20)) * 2 + cpu_nodes;
  BenchOptions options;
  options.nodes_yaml = nodes_yaml(nodes);
  options.nodes = static_cast<std::size_t>(registered);
  Bench b(options);
  std::printf("cluster: %d nodes registered in %.1f s\n", registered, b.registered_s());
  const auto pods_start = Steady::now();
  write_pods(b, pods, cpu_nodes);
  std::printf("cluster: %d pods written in %.1f s\n", pods,
              std::chrono::duration<double>(Steady::now() - pods_start).count());
  kube::Client& c = b.client();
  for (int n = 0; n < 10; ++n)
    must(c.create(kube::resources::networks, "",
                  Json{{"apiVersion", "respool.io/v1alpha1"},
                       {"kind", "Network"},
                       {"metadata", {{"name", "net-" + std::to_string(n)}}},
                       {"spec", {{"cidr", "10." + std::to_string(110 + n) + ".0.0/16"}}}}),
         "create network");
  const std::string work = std::filesystem::temp_directory_path() / "bench_scale";
  std::filesystem::create_directories(work);

  // The simulator's kubelets are still writing the pods' status long after the last create: a
  // sync measured beside them measured that load (44 s against 23 s on a quiet server).
  phase("waiting for the simulator's writes to end");
  const auto quiet_start = Steady::now();
  for (auto before = b.counts().writes("respool-sandbox-simulator");;) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const auto now = b.counts().writes("respool-sandbox-simulator");
    // Quiet: fewer than 10 writes a second (node heartbeats, say), or 15 minutes at most.
    if (now - before < 30 || Steady::now() - quiet_start > std::chrono::minutes(15)) break;
    before = now;
  }
  std::printf("cluster: quiet %.1f s after the last pod\n",
              std::chrono::duration<double>(Steady::now() - quiet_start).count());

  if (const char* other = std::getenv("RESPOOL_BENCH_SYNC_AB")) {
    sync_ab(b, other, work);
    completed();
    return 0;
  }

  phase("sync");
  OperatorProcess op(b.sandbox().kubeconfig_path().string(), source("config/catalog.yaml"),
                     work + "/operator.log");
  const double ready_s = op.wait_ready(std::chrono::minutes(10));
  const long ready_rss = op.rss_kib();
  const double ready_cpu = op.cpu_s();
  std::printf("sync     %7.2f s to ready  RSS %ld MiB  CPU %.2f s\n", ready_s, ready_rss / 1024,
              ready_cpu);
  if (clientgo != "-") {
    phase("client-go sync");
    const std::string out = work + "/clientgo.txt";
    const std::string cmd =
        clientgo + " informers " + b.sandbox().kubeconfig_path().string() + " >" + out + " 2>&1";
    if (std::system(cmd.c_str()) != 0) die("client-go: see " + out);
    std::ifstream in(out);
    std::string line;  // its figures' line (client-go may log a retried request before it)
    while (std::getline(in, line) && line.rfind("client-go: synced", 0) != 0) {
    }
    double cg_s = 0, cg_cpu = 0;
    long cg_rss = 0;
    if (std::sscanf(line.c_str(),
                    "client-go: synced %*d nodes and %*d pods in %lf s; RSS %ld KiB; CPU %lf s",
                    &cg_s, &cg_rss, &cg_cpu) != 3)
      die("client-go said: " + line);
    std::printf(
        "%s\nratios   RSS %.3f (respool %ld MiB, client-go %ld MiB)  sync time %.3f  "
        "CPU %.3f\n",
        line.c_str(), static_cast<double>(ready_rss) / static_cast<double>(cg_rss),
        ready_rss / 1024, cg_rss / 1024, ready_s / cg_s, ready_cpu / cg_cpu);
  }

  const auto pools = plan_pools(pool_count, scale);
  std::vector<int> counts;
  for (const auto& p : pools)
    counts.push_back(p.count);
  Phases phases(b, op);
  phases.begin("create");
  int pool_nodes = 0;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    must(c.create(kube::resources::resourcepools, "", pool_object(pools[i], static_cast<int>(i))),
         "create pool");
    pool_nodes += pools[i].count;
  }
  phases.wait([&] { return converged_pools(c) == pools.size(); }, std::chrono::minutes(30));
  // Per node its claim and the end of its admission; per pool the finalizer, its plug-in
  // DaemonSet (the catalog's one Training plug-in), its driver's DaemonSet when it has a driver,
  // and a status write.
  phases.end(2ULL * pool_nodes + 3ULL * pools.size() + std::min<std::size_t>(10, pools.size()),
             std::to_string(pools.size()) + " pools, " + std::to_string(pool_nodes) + " nodes");

  phases.begin("resize");
  int moved = 0;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const int delta = i % 2 == 0 ? std::max(1, pools[i].count / 10) : -1;
    if (pools[i].count + delta < 1) continue;
    moved += std::abs(delta);
    counts[i] += delta;
    must(c.patch(kube::resources::resourcepools, "", pools[i].name, kube::PatchType::Json,
                 Json::array({{{"op", "replace"},
                               {"path", "/spec/resources/0/count"},
                               {"value", pools[i].count + delta}}})),
         "resize pool");
  }
  phases.wait([&] { return converged_pools(c) == pools.size(); }, std::chrono::minutes(30));
  // Per node that joins a claim and its admission; per node that leaves one release.
  phases.end(2ULL * moved, std::to_string(moved) + " nodes in or out");

  phases.begin("upgrade");
  int upgrading = 0;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (!pools[i].driver) continue;
    must(c.patch(kube::resources::resourcepools, "", pools[i].name, kube::PatchType::Merge,
                 Json{{"spec", {{"driver", {{"gpuVersion", kDriver[1]}}}}}}),
         "upgrade");
    upgrading += counts[i];
  }
  phases.wait([&] { return upgraded(c, pools); }, std::chrono::minutes(30));
  // bench_driver_upgrade's minimal: per node the cordon, the driver pod's deletion, the uncordon.
  phases.end(3ULL * upgrading, std::to_string(upgrading) + " nodes");

  phases.begin("replace");
  std::vector<std::string> operations;
  for (std::size_t i = 10; i < pools.size() && operations.size() < 100; ++i) {
    kube::ListOptions in_pool;
    in_pool.label_selector = "respool.io/pool=" + pools[i].name;
    Json members = must(c.list(kube::resources::nodes, "", in_pool), "list nodes");
    if (members["items"].empty()) continue;
    const std::string name = "replace-" + pools[i].name;
    must(c.create(kube::resources::nodeoperations, "",
                  Json{{"apiVersion", "respool.io/v1alpha1"},
                       {"kind", "NodeOperation"},
                       {"metadata", {{"name", name}}},
                       {"spec",
                        {{"pool", pools[i].name},
                         {"type", "Replace"},
                         {"nodes", Json::array({members["items"][0]["metadata"]["name"]})}}}}),
         "create NodeOperation");
    operations.push_back(name);
  }
  phases.wait(
      [&] {
        Json ops = must(c.list(kube::resources::nodeoperations, ""), "list operations");
        for (const auto& o : ops["items"]) {
          const std::string ph = o.value("status", Json::object()).value("phase", "");
          if (ph == "Failed" || ph == "Rejected")
            die("NodeOperation " + o["metadata"]["name"].get<std::string>() + ": " + ph);
          if (ph != "Succeeded") return false;
        }
        return true;
      },
      std::chrono::minutes(30));
  // Per replacement: cordon, claim, admission, retirement, and the operation's status.
  phases.end(5ULL * operations.size(), std::to_string(operations.size()) + " replacements");
  std::printf("operator peak RSS %ld MiB\n", op.peak_rss_kib() / 1024);
  completed();
  return 0;
}
