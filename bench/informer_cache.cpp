// Decode-and-cache rate and memory of the informer cache for 5,000 Nodes and 150,000 Pods of
// realistic size (issue 3). List pages of 500 objects, shaped like what a real API server sends
// (managedFields, projected volumes, tolerations, container statuses), are decoded and stored
// with the informer's own code (decode_list_page + Store with the controllers' indexes), on one
// thread. Pages are generated one at a time so that only the cache stays in memory.
//
//   build/bench/bench_informer_cache [pods=150000] [nodes=5000] [runs=3]

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "operator/kube/decode.hpp"
#include "operator/runtime/store.hpp"
#include "reconcilers/policy/node_health.hpp"

using namespace respool;

namespace {

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

std::string uid(std::size_t i, char tag) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%08zx-%c1b2-4c3d-8e4f-%012zx", i, tag, i * 7919);
  return buf;
}

std::string node_json(std::size_t i) {
  const std::string name = "gpu-node-" + std::to_string(i);
  const bool pooled = i % 3 != 0;
  std::string pool = pooled ? "pool-" + std::to_string(i % 40) : "";
  return R"({"kind":"Node","apiVersion":"v1","metadata":{"name":")" + name + R"(","uid":")" +
         uid(i, 'n') + R"(","resourceVersion":")" + std::to_string(1000 + i) +
         R"(","creationTimestamp":"2026-10-01T08:00:00Z","labels":{"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":")" +
         name +
         R"(","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"gpu-8x-a100","topology.kubernetes.io/region":"region-1","topology.kubernetes.io/zone":"az-)" +
         std::to_string(i % 3) + "\"" +
         (pooled ? R"(,"respool.io/pool":")" + pool + R"(","respool.io/job-type.training":"true")"
                 : std::string()) +
         R"(},"annotations":{"node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true","respool.io/container-engine-space":"50"},"managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2026-10-01T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:volumes.kubernetes.io/controller-managed-attach-detach":{}},"f:labels":{".":{},"f:beta.kubernetes.io/arch":{},"f:beta.kubernetes.io/os":{},"f:kubernetes.io/arch":{},"f:kubernetes.io/hostname":{},"f:kubernetes.io/os":{}}}}},{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2026-11-01T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:allocatable":{"f:nvidia.com/gpu":{}},"f:capacity":{"f:nvidia.com/gpu":{}},"f:conditions":{"k:{\"type\":\"DiskPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"MemoryPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"PIDPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{}}},"f:images":{},"f:nodeInfo":{"f:bootID":{}}}},"subresource":"status"}]},"spec":{"podCIDR":"10.244.)" +
         std::to_string(i % 250) + R"(.0/24","podCIDRs":["10.244.)" + std::to_string(i % 250) +
         R"(.0/24"],"providerID":"sim://)" + name + "\"" + (pooled ? R"(,"taints":[{"key":"respool.io/pool","value":")" + pool + R"(","effect":"NoSchedule"}])" : std::string()) +
         R"(},"status":{"capacity":{"cpu":"96","ephemeral-storage":"1966736Mi","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"1056544832Ki","nvidia.com/gpu":"8","pods":"110"},"allocatable":{"cpu":"95500m","ephemeral-storage":"1812567435437","hugepages-1Gi":"0","hugepages-2Mi":"0","memory":"1045947968Ki","nvidia.com/gpu":"8","pods":"110"},"conditions":[{"type":"MemoryPressure","status":"False","lastHeartbeatTime":"2026-11-22T08:00:00Z","lastTransitionTime":"2026-10-01T08:00:00Z","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available"},{"type":"DiskPressure","status":"False","lastHeartbeatTime":"2026-11-22T08:00:00Z","lastTransitionTime":"2026-10-01T08:00:00Z","reason":"KubeletHasNoDiskPressure","message":"kubelet has no disk pressure"},{"type":"PIDPressure","status":"False","lastHeartbeatTime":"2026-11-22T08:00:00Z","lastTransitionTime":"2026-10-01T08:00:00Z","reason":"KubeletHasSufficientPID","message":"kubelet has sufficient PID available"},{"type":"Ready","status":"True","lastHeartbeatTime":"2026-11-22T08:00:00Z","lastTransitionTime":"2026-10-01T08:00:10Z","reason":"KubeletReady","message":"kubelet is posting ready status"}],"addresses":[{"type":"InternalIP","address":"10.0.)" +
         std::to_string(i % 250) + "." + std::to_string(i / 250 % 250) +
         R"("},{"type":"Hostname","address":")" + name +
         R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{"machineID":"0b9c7e4f9d1a4b6c8e2f3a4b5c6d7e8f","systemUUID":"4c4c4544-0042-3510-8052-b4c04f4e3332","bootID":"6f2a1b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b","kernelVersion":"5.15.0-119-generic","osImage":"Ubuntu 22.04.4 LTS","containerRuntimeVersion":"containerd://1.7.20","kubeletVersion":"v1.32.4","kubeProxyVersion":"v1.32.4","operatingSystem":"linux","architecture":"amd64"},"images":[{"names":["registry.example/gpu-driver@sha256:1f2e3d4c5b6a79880716253443526170819a0b1c2d3e4f5a6b7c8d9e0f1a2b3c","registry.example/gpu-driver:535.104.05"],"sizeBytes":1532217345},{"names":["registry.example/vision/resnet-train@sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0","registry.example/vision/resnet-train:2.4.1"],"sizeBytes":8312219001}]}})";
}

std::string pod_json(std::size_t i, std::size_t nodes) {
  const std::size_t job = i / 8;
  const std::string rs = "train-" + std::to_string(job % 2000) + "-7f9c4d8b6";
  const std::string name = rs + "-" + std::to_string(i);
  const std::string ns = "team-" + std::to_string(i % 50);
  const std::string node = "gpu-node-" + std::to_string(i % nodes);
  const std::string phase = i % 10 == 0 ? "Succeeded" : "Running";
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","generateName":")" + rs + R"(-","namespace":")" + ns + R"(","uid":")" + uid(i, 'p') +
         R"(","resourceVersion":")" + std::to_string(100000 + i) +
         R"(","creationTimestamp":"2026-11-01T10:00:00Z","labels":{"app":"train-job","pod-template-hash":"7f9c4d8b6","team":")" +
         ns +
         R"(","volcano.sh/job-name":"job-)" + std::to_string(job % 2000) + R"("},"annotations":{"kubernetes.io/psp":"restricted","prometheus.io/scrape":"true"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" + rs + R"(","uid":")" + uid(job, 'r') +
         R"(","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-01T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"a1b2c3d4\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"trainer\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{".":{},"f:limits":{".":{},"f:nvidia.com/gpu":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}},{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2026-11-01T10:00:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:startTime":{}}},"subresource":"status"}]},"spec":{"volumes":[{"name":"kube-api-access-9x7zq","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}},{"name":"dataset","persistentVolumeClaim":{"claimName":"imagenet"}}],"containers":[{"name":"trainer","image":"registry.example/vision/resnet-train:2.4.1","command":["python","-m","train"],"args":["--epochs","90","--batch-size","256"],"env":[{"name":"NCCL_DEBUG","value":"INFO"},{"name":"MASTER_ADDR","value":"job-master-0"}],"resources":{"limits":{"nvidia.com/gpu":"8"},"requests":{"cpu":"32","memory":"256Gi","nvidia.com/gpu":"8"}},"volumeMounts":[{"name":"dataset","mountPath":"/data"},{"name":"kube-api-access-9x7zq","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default","nodeName":")" + node + R"(","securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"respool.io/pool","operator":"Exists","effect":"NoSchedule"},{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":")" + phase + R"(","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:01Z"},{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:05Z"},{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:05Z"},{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-01T10:00:00Z"}],"hostIP":"10.0.3.4","podIP":"10.0.3.17","podIPs":[{"ip":"10.0.3.17"}],"startTime":"2026-11-01T10:00:00Z","containerStatuses":[{"name":"trainer","state":{"running":{"startedAt":"2026-11-01T10:00:04Z"}},"lastState":{},"ready":true,"restartCount":0,"image":"registry.example/vision/resnet-train:2.4.1","imageID":"registry.example/vision/resnet-train@sha256:9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0","containerID":"containerd://5d4c3b2a19f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5","started":true}],"qosClass":"Burstable"}})";
}

template <class Make>
std::string page(std::size_t from, std::size_t to, Make make, const char* kind) {
  std::string out = std::string(R"({"kind":")") + kind +
                    R"(List","apiVersion":"v1","metadata":{"resourceVersion":"999999"},"items":[)";
  for (std::size_t i = from; i < to; ++i) {
    if (i != from) out += ',';
    out += make(i);
  }
  out += "]}";
  return out;
}

struct Caches {
  runtime::Store<kube::Node> nodes;
  runtime::Store<kube::Pod> pods;
  Caches() {
    // The indexes the resourcepool controller uses.
    nodes.add_index("pool", [](const kube::Node& n) {
      auto pool = n.meta.labels.get("respool.io/pool");
      return pool ? std::vector<std::string>{std::string(*pool)} : std::vector<std::string>{};
    });
    pods.add_index("node", [](const kube::Pod& p) {
      return p.node_name.empty() ? std::vector<std::string>{}
                                 : std::vector<std::string>{p.node_name.str()};
    });
  }
};

struct Run {
  double seconds = 0;  // decode + store only, page generation excluded
  std::size_t bytes = 0;
  std::size_t objects = 0;
};

Run fill(Caches& caches, std::size_t node_count, std::size_t pod_count) {
  Run run;
  kube::DecodeOptions node_options;  // every annotation of a node is kept, as the operator's
  node_options.keep_condition_types = {std::begin(policy::kAgentConditionTypes),
                                       std::end(policy::kAgentConditionTypes)};
  kube::DecodeOptions pod_options;
  pod_options.keep_annotations = {"respool.io/driver-version"};
  auto timed = [&](const std::string& text, auto&& decode) {
    run.bytes += text.size();
    auto start = std::chrono::steady_clock::now();
    decode(text);
    run.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (std::size_t from = 0; from < node_count; from += 500) {
    std::string text = page(from, std::min(node_count, from + 500), node_json, "Node");
    timed(text, [&](const std::string& t) {
      std::function<void(kube::Node &&)> on = [&](kube::Node&& n) {
        caches.nodes.upsert(std::make_shared<const kube::Node>(std::move(n)));
        ++run.objects;
      };
      if (!kube::decode_list_page<kube::Node>(t, node_options, on)) std::abort();
    });
  }
  for (std::size_t from = 0; from < pod_count; from += 500) {
    std::string text = page(
        from, std::min(pod_count, from + 500),
        [&](std::size_t i) { return pod_json(i, node_count); }, "Pod");
    timed(text, [&](const std::string& t) {
      std::function<void(kube::Pod &&)> on = [&](kube::Pod&& p) {
        caches.pods.upsert(std::make_shared<const kube::Pod>(std::move(p)));
        ++run.objects;
      };
      if (!kube::decode_list_page<kube::Pod>(t, pod_options, on)) std::abort();
    });
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  respool::bench::begin("bench_informer_cache", std::chrono::minutes(20));
  const std::size_t pods = argc > 1 ? std::stoul(argv[1]) : 150'000;
  const std::size_t nodes = argc > 2 ? std::stoul(argv[2]) : 5'000;
  const int runs = argc > 3 ? std::stoi(argv[3]) : 3;
  std::printf("informer cache: %zu nodes + %zu pods, pages of 500, one thread\n", nodes, pods);
  std::printf("sample sizes: node %zu bytes, pod %zu bytes of JSON\n", node_json(1).size(),
              pod_json(1, nodes).size());

  malloc_trim(0);
  const long baseline = rss_kib();
  std::vector<double> rates;
  long cache_kib = 0;
  for (int r = 0; r < runs; ++r) {
    auto caches = std::make_unique<Caches>();
    Run run = fill(*caches, nodes, pods);
    rates.push_back(run.objects / run.seconds);
    std::printf(
        "run %d: %zu objects, %.1f MB JSON, %.2f s decode+cache: %.0f objects/s, %.0f MB/s\n",
        r + 1, run.objects, run.bytes / 1e6, run.seconds, run.objects / run.seconds,
        run.bytes / 1e6 / run.seconds);
    if (r == 0) {
      malloc_trim(0);
      cache_kib = rss_kib() - baseline;
      std::printf("cache RSS (nodes %zu, pods %zu, after malloc_trim): %.1f MiB\n",
                  caches->nodes.size(), caches->pods.size(), cache_kib / 1024.0);
    }
  }
  std::sort(rates.begin(), rates.end());
  std::printf("median decode-and-cache rate: %.0f objects/s (goal >= 50000)\n",
              rates[rates.size() / 2]);
  std::printf("cache RSS: %.1f MiB (goal <= 128 MiB)\n", cache_kib / 1024.0);
  respool::bench::completed();
  return 0;
}
