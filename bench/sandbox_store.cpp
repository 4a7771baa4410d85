// Memory of the sandbox API server's store per Pod: 150,000 Pods of realistic size (the pod of
// bench_informer_cache: projected volumes, tolerations, resources, a running status) created
// through the Engine (defaulting, validation, store, indexes, watch history), then the RSS the
// store holds per Pod after malloc_trim.
//
//   build/bench/bench_sandbox_store [pods=150000]

#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "bench/harness.hpp"
#include "operator/runtime/clock.hpp"
#include "sandbox/apiserver/registry/engine.hpp"

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

const Json& pod_template() {
  static const Json pod = Json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{
    "labels":{"app":"train-job","pod-template-hash":"7f9c4d8b6"},
    "annotations":{"kubernetes.io/psp":"restricted","prometheus.io/scrape":"true"}},
    "spec":{"volumes":[{"name":"kube-api-access-9x7zq","projected":{"sources":[
      {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
      {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
      {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],
      "defaultMode":420}},{"name":"dataset","persistentVolumeClaim":{"claimName":"imagenet"}}],
    "containers":[{"name":"trainer","image":"registry.example/vision/resnet-train:2.4.1",
      "command":["python","-m","train"],"args":["--epochs","90","--batch-size","256"],
      "env":[{"name":"NCCL_DEBUG","value":"INFO"},{"name":"MASTER_ADDR","value":"job-master-0"}],
      "resources":{"limits":{"nvidia.com/gpu":"8"},"requests":{"cpu":"32","memory":"256Gi","nvidia.com/gpu":"8"}},
      "volumeMounts":[{"name":"dataset","mountPath":"/data"},{"name":"kube-api-access-9x7zq","readOnly":true,
        "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],
    "restartPolicy":"Never","serviceAccountName":"default",
    "tolerations":[{"key":"respool.io/pool","operator":"Exists","effect":"NoSchedule"},
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}})");
  return pod;
}

Json running_status() {
  static const Json status = Json::parse(R"({"phase":"Running","conditions":[
    {"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:01Z"},
    {"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:05Z"},
    {"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:05Z"},
    {"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:00Z"}],
    "hostIP":"10.0.3.4","podIP":"10.0.3.17","podIPs":[{"ip":"10.0.3.17"}],"startTime":"2026-11-01T10:00:00Z",
    "containerStatuses":[{"name":"trainer","state":{"running":{"startedAt":"2026-11-01T10:00:04Z"}},"lastState":{},
    "ready":true,"restartCount":0,"image":"registry.example/vision/resnet-train:2.4.1",
    "imageID":"registry.example/vision/resnet-train@sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "containerID":"containerd://5d4c3b2a19f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5","started":true}],
    "qosClass":"Burstable"})");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  respool::bench::begin("bench_sandbox_store", std::chrono::minutes(30));
  const std::size_t pods = argc > 1 ? std::stoul(argv[1]) : 150'000;
  runtime::ManualClock clock;
  sandbox::Engine engine(clock, 10'000);
  engine.bootstrap();
  auto ns_type = engine.registry().find("", "v1", "namespaces");
  auto pod_type = engine.registry().find("", "v1", "pods");
  for (int t = 0; t < 50; ++t) {
    Json ns = {{"metadata", {{"name", "team-" + std::to_string(t)}}}};
    if (auto made = engine.create(*ns_type, "", ns, {}); !made) {
      std::fprintf(stderr, "namespace: %s\n", made.error().message.c_str());
      return 1;
    }
  }
  malloc_trim(0);
  const long baseline = rss_kib();
  auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < pods; ++i) {
    Json pod = pod_template();
    std::string ns = "team-" + std::to_string(i % 50);
    pod["metadata"]["name"] = "train-" + std::to_string(i / 8) + "-7f9c4d8b6-" + std::to_string(i);
    pod["metadata"]["namespace"] = ns;
    pod["metadata"]["labels"]["team"] = ns;
    pod["spec"]["nodeName"] = "gpu-node-" + std::to_string(i % 5000);
    auto created = engine.create(*pod_type, ns, std::move(pod), {});
    if (!created) {
      std::fprintf(stderr, "pod: %s\n", created.error().message.c_str());
      return 1;
    }
    // What the kubelet reports once the pod runs.
    Json running = *created->object.obj;
    running["status"] = running_status();
    std::string name = sandbox::object_name(running);
    if (auto updated = engine.update(*pod_type, ns, name, std::move(running), {}, "status");
        !updated) {
      std::fprintf(stderr, "status: %s\n", updated.error().message.c_str());
      return 1;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  malloc_trim(0);
  const long used = rss_kib() - baseline;
  std::printf("pods stored: %zu in %.1f s (%.0f/s)\n", pods, seconds, pods / seconds);
  std::printf("store RSS: %.1f MiB, %.1f KiB per pod (after malloc_trim)\n", used / 1024.0,
              static_cast<double>(used) / static_cast<double>(pods));
  respool::bench::completed();
  return 0;
}
