// The sandbox API server's store at 150,000 Pods of realistic size (the pod of
// bench_informer_cache: projected volumes, tolerations, resources, a running status):
//  1. memory: the Pods created and made Running through the Engine (defaulting, validation,
//     store, indexes, watch history), then the RSS the store holds per Pod after malloc_trim;
//  2. served (issue 30's "list and watch latency no worse"): the same Pods written over HTTP to
//     an in-process sandbox (no simulator), then what clients wait for: a whole paginated LIST
//     (pages of 500, as an informer syncs), a LIST by field selector (spec.nodeName, a kubelet's)
//     and by label selector in one namespace, and from a status write's start until a watch of
//     its namespace has the event.
//
//   build/bench/bench_sandbox_store [pods=150000] [served_pods=pods]

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "bench/realistic_pod.hpp"
#include "operator/kube/client.hpp"
#include "operator/kube/resource.hpp"
#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/registry/engine.hpp"
#include "sandbox/sandbox.hpp"

using namespace respool;
using sandbox::Json;

namespace {

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// Pod i of the benchmark: 50 namespaces, 8 pods per job, 30 pods per node at 150,000.
Json pod_number(std::size_t i) {
  Json pod = bench::pod_template();
  std::string ns = "team-" + std::to_string(i % 50);
  pod["metadata"]["name"] = "train-" + std::to_string(i / 8) + "-7f9c4d8b6-" + std::to_string(i);
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["labels"]["team"] = ns;
  pod["metadata"]["labels"]["job"] = "train-" + std::to_string(i / 8);
  pod["spec"]["nodeName"] = "gpu-node-" + std::to_string(i % 5000);
  return pod;
}

void must_ok(std::expected<void, kube::Error> done, const char* what) {
  if (!done) bench::die(std::string(what) + ": " + done.error().describe());
}

double ms_since(bench::Steady::time_point start) {
  return std::chrono::duration<double, std::milli>(bench::Steady::now() - start).count();
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// Phase 2: the Pods written over HTTP by 4 clients, then the latencies clients see.
void served(std::size_t pods) {
  bench::phase("served: start");
  auto sandbox = sandbox::Sandbox::start({.simulator = false});
  if (!sandbox) bench::die("sandbox: " + sandbox.error());
  auto client = bench::must(kube::Client::create((*sandbox)->cluster_config()), "client");
  for (int t = 0; t < 50; ++t) {
    Json ns = {{"metadata", {{"name", "team-" + std::to_string(t)}}}};
    bench::must(client->create(kube::resources::namespaces, "", ns), "namespace");
  }
  bench::phase("served: writing pods");
  const auto load_start = bench::Steady::now();
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&] {
      auto c = bench::must(kube::Client::create((*sandbox)->cluster_config()), "client");
      for (std::size_t i = next++; i < pods; i = next++) {
        Json pod = pod_number(i);
        const std::string ns = pod["metadata"]["namespace"];
        Json made = bench::must(c->create(kube::resources::pods, ns, pod), "pod");
        made["status"] = bench::running_status();
        bench::must(c->update_status(kube::resources::pods, ns, made), "pod status");
      }
    });
  }
  for (auto& w : writers)
    w.join();
  const double load_s = ms_since(load_start) / 1000;
  std::printf("served: %zu pods written over HTTP in %.1f s (%.0f pods/s, create + status)\n", pods,
              load_s, static_cast<double>(pods) / load_s);

  bench::phase("served: paginated list");
  std::vector<double> full;
  std::size_t listed = 0;
  for (int run = 0; run < 3; ++run) {
    listed = 0;
    const auto start = bench::Steady::now();
    kube::ListOptions pages;
    pages.limit = 500;
    must_ok(client->list_pages(kube::resources::pods, "", pages,
                               [&](std::string_view page) {
                                 listed += page.size();
                                 return true;
                               }),
            "list");
    full.push_back(ms_since(start));
  }
  std::printf("served: LIST of all pods in pages of 500: %.0f ms median of 3 (%.1f MiB)\n",
              bench::median(full), static_cast<double>(listed) / (1024.0 * 1024.0));

  bench::phase("served: selector lists");
  std::vector<double> by_field, by_label;
  for (int i = 0; i < 20; ++i) {
    kube::ListOptions on_node_options, of_job_options;
    on_node_options.field_selector =
        "spec.nodeName=gpu-node-" + std::to_string(i * 37 % std::min<std::size_t>(pods, 5000));
    of_job_options.label_selector = "job=train-" + std::to_string(i);
    auto start = bench::Steady::now();
    Json on_node =
        bench::must(client->list(kube::resources::pods, "", on_node_options), "list by node");
    by_field.push_back(ms_since(start));
    if (on_node["items"].empty()) bench::die("no pods on the node");
    start = bench::Steady::now();
    Json of_job = bench::must(
        client->list(kube::resources::pods, "team-" + std::to_string(i * 8 % 50), of_job_options),
        "list by label");
    by_label.push_back(ms_since(start));
  }
  std::printf(
      "served: LIST by fieldSelector spec.nodeName (all namespaces): %.1f ms median of 20\n",
      bench::median(by_field));
  std::printf("served: LIST by labelSelector job= in one namespace: %.1f ms median of 20\n",
              bench::median(by_label));

  bench::phase("served: watch latency");
  kube::ListOptions first_hundred;
  first_hundred.limit = 100;
  Json ns_pods;
  must_ok(client->list_pages(kube::resources::pods, "team-0", first_hundred,
                             [&](std::string_view page) {
                               ns_pods = Json::parse(page);
                               return false;
                             }),
          "list team-0");
  kube::WatchOptions from_list;
  from_list.resource_version = ns_pods["metadata"]["resourceVersion"].get<std::string>();
  from_list.allow_bookmarks = false;
  auto watch = bench::must(client->watch(kube::resources::pods, "team-0", from_list), "watch");
  std::vector<double> to_event;
  for (std::size_t i = 0; i < std::min<std::size_t>(50, ns_pods["items"].size()); ++i) {
    Json pod = ns_pods["items"][i];
    pod["status"]["message"] = "write " + std::to_string(i);
    const auto start = bench::Steady::now();
    bench::must(client->update_status(kube::resources::pods, "team-0", pod), "status write");
    auto line = bench::must(watch->next_line(std::chrono::seconds(10)), "watch event");
    if (!line) bench::die("the watch ended");
    to_event.push_back(ms_since(start));
  }
  std::printf("served: status write to its watch event: %.2f ms median, %.2f ms p99 of %zu\n",
              bench::median(to_event), percentile(to_event, 0.99), to_event.size());
  watch->cancel();
}

// Phase 1: the Pods created and made Running through the Engine; the RSS they hold.
void memory(std::size_t pods) {
  bench::phase("memory");
  runtime::ManualClock clock;
  sandbox::Engine engine(clock, 10'000);
  engine.bootstrap();
  auto ns_type = engine.registry().find("", "v1", "namespaces");
  auto pod_type = engine.registry().find("", "v1", "pods");
  for (int t = 0; t < 50; ++t) {
    Json ns = {{"metadata", {{"name", "team-" + std::to_string(t)}}}};
    if (auto made = engine.create(*ns_type, "", ns, {}); !made) {
      bench::die("namespace: " + made.error().message);
    }
  }
  malloc_trim(0);
  const long baseline = rss_kib();
  auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < pods; ++i) {
    Json pod = pod_number(i);
    const std::string ns = pod["metadata"]["namespace"];
    auto created = engine.create(*pod_type, ns, std::move(pod), {});
    if (!created) bench::die("pod: " + created.error().message);
    // What the kubelet reports once the pod runs.
    Json running = *created->object.obj();
    running["status"] = bench::running_status();
    std::string name = sandbox::object_name(running);
    if (auto updated = engine.update(*pod_type, ns, name, std::move(running), {}, "status");
        !updated) {
      bench::die("status: " + updated.error().message);
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  malloc_trim(0);
  const long used = rss_kib() - baseline;
  std::printf("pods stored: %zu in %.1f s (%.0f/s)\n", pods, seconds, pods / seconds);
  std::printf("store RSS: %.1f MiB, %.1f KiB per pod (after malloc_trim)\n", used / 1024.0,
              static_cast<double>(used) / static_cast<double>(pods));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  respool::bench::begin("bench_sandbox_store", std::chrono::minutes(30));
  const std::size_t pods = argc > 1 ? std::stoul(argv[1]) : 150'000;
  const std::size_t served_pods = argc > 2 ? std::stoul(argv[2]) : pods;
  memory(pods);
  malloc_trim(0);
  if (served_pods > 0) served(served_pods);
  respool::bench::completed();
  return 0;
}
